import { render } from 'ink';
import { NodeTui, type NodeTuiProps } from './app.js';

/** Shows the live node view on the terminal; resolves when it is closed. */
export function renderNodeTui(props: NodeTuiProps): { unmount(): void; closed: Promise<void> } {
  const instance = render(<NodeTui {...props} />, { exitOnCtrlC: false });
  return { unmount: () => instance.unmount(), closed: instance.waitUntilExit().then(() => undefined) };
}
