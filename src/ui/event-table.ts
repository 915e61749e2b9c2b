import { humanDuration } from '../engine/api/printers.js';
import type { Event } from '../engine/api/cluster.js';
import { TabWriter } from '../util/tabwriter.js';

/** When the event last happened (what kubectl sorts by): its lastTimestamp, else its eventTime. */
export function eventTime(e: Event): number {
  return Date.parse(e.lastTimestamp ?? (e as { eventTime?: string }).eventTime ?? '') || 0;
}

/** Events oldest first, as kubectl's SortableEvents orders them. */
export function sortEvents(events: Event[]): Event[] {
  return [...events].sort((a, b) => eventTime(a) - eventTime(b));
}

function since(time: string | undefined, now: number): string {
  const at = time ? Date.parse(time) : NaN;
  return Number.isNaN(at) ? '<unknown>' : humanDuration(now - at);
}

/** kubectl's interval: the age of the first time, or "2m (x5 over 10m)" for a repeated event. */
export function eventInterval(e: Event, now: number): string {
  const first = since(e.firstTimestamp ?? (e as { eventTime?: string }).eventTime, now);
  return (e.count ?? 0) > 1 ? `${since(e.lastTimestamp, now)} (x${e.count} over ${first})` : first;
}

/** One `kubectl events` row's cells: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE. */
export function eventCells(e: Event, now: number, allNamespaces: boolean): string[] {
  const cells = [eventInterval(e, now), e.type, e.reason, `${e.involvedObject.kind}/${e.involvedObject.name}`, e.message.trim()];
  return allNamespaces ? [e.metadata.namespace ?? '', ...cells] : cells;
}

export function eventHeader(allNamespaces: boolean): string[] {
  return [...(allNamespaces ? ['NAMESPACE'] : []), 'LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'];
}

/**
 * `kubectl events`' table, as its tabwriter prints it (columns three spaces
 * apart, at least six wide). Keep one for a watch: the columns only widen,
 * as kubectl's do, so rows printed later stay aligned with the first ones.
 */
export class EventTable {
  private readonly writer = new TabWriter({ minWidth: 6, padding: 3, rememberWidths: true });

  constructor(private readonly allNamespaces: boolean) {}

  format(events: Event[], now: number, withHeader: boolean): string {
    const rows = events.map((e) => eventCells(e, now, this.allNamespaces));
    const lines = [...(withHeader ? [eventHeader(this.allNamespaces)] : []), ...rows];
    return this.writer.format(lines.map((cells) => `${cells.join('\t')}\n`).join(''));
  }
}
