// cricheck: a small CRI client with crictl's command names, built on the
// published k8s.io/cri-client (the client library crictl and the kubelet use).
// It stands in for crictl while the Go module proxy refuses cri-tools (see
// ../README.md). build.sh builds it in a generated module under the cache dir.
//
//	cricheck [-r ENDPOINT] [-t TIMEOUT] [--streaming] COMMAND [ARGS]
//
// Commands: version, info, pods, ps [-a], images, pull IMAGE, inspecti IMAGE,
// imagefsinfo, runp POD.json, create [--no-pull] POD_ID CTR.json POD.json,
// start ID, stop [-t SECONDS] ID, rm ID, stopp ID, rmp ID, inspect ID,
// inspectp ID, logs ID, exec -s ID CMD..., stats, statsp,
// events [--for DURATION], and (the URL or answer only) exec-url ID CMD...,
// attach ID, port-forward POD_ID, rmi IMAGE, runtime-config,
// update --memory BYTES ID, reopen-log ID, metricdescs, metricsp. Errors are printed as crictl prints them and exit 1.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	internalapi "k8s.io/cri-api/pkg/apis"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	remote "k8s.io/cri-client/pkg"
	"k8s.io/cri-client/pkg/logs"
)

var (
	endpoint  = flag.String("r", os.Getenv("CONTAINER_RUNTIME_ENDPOINT"), "runtime endpoint (unix:///path)")
	timeout   = flag.Duration("t", 10*time.Second, "timeout of each call")
	streaming = flag.Bool("streaming", false, "use the streaming List RPCs (falls back to unary on UNIMPLEMENTED)")
)

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "cricheck: "+format+"\n", a...)
	os.Exit(1)
}

func runtimeService(ctx context.Context) internalapi.RuntimeService {
	rs, err := remote.NewRemoteRuntimeServiceBuilder().WithEndpoint(*endpoint).
		WithConnectionTimeout(*timeout).WithTracerProvider(nil).WithUseStreaming(*streaming).Build(ctx)
	if err != nil {
		fail("connect: %v", err)
	}
	return rs
}

func imageService(ctx context.Context) internalapi.ImageManagerService {
	is, err := remote.NewRemoteImageServiceBuilder().WithEndpoint(*endpoint).
		WithConnectionTimeout(*timeout).WithTracerProvider(nil).WithUseStreaming(*streaming).Build(ctx)
	if err != nil {
		fail("connect image service: %v", err)
	}
	return is
}

func printJSON(v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		fail("marshal: %v", err)
	}
	fmt.Println(string(b))
}

func readJSON(path string, v any) {
	b, err := os.ReadFile(path)
	if err != nil {
		fail("read %s: %v", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		fail("parse %s: %v", path, err)
	}
}

func need(args []string, n int, usage string) {
	if len(args) < n {
		fail("usage: %s", usage)
	}
}

func short(id string) string {
	if len(id) > 13 {
		return id[:13]
	}
	return id
}

func ago(ns int64) string {
	if ns == 0 {
		return "-"
	}
	return time.Since(time.Unix(0, ns)).Round(time.Second).String() + " ago"
}

func main() {
	flag.Parse()
	args := flag.Args()
	if *endpoint == "" {
		fail("no runtime endpoint: -r unix:///path or CONTAINER_RUNTIME_ENDPOINT")
	}
	if len(args) == 0 {
		fail("usage: cricheck [-r ENDPOINT] COMMAND [ARGS] (see main.go)")
	}
	ctx := context.Background()
	cmd, args := args[0], args[1:]
	w := tabwriter.NewWriter(os.Stdout, 0, 8, 3, ' ', 0)
	defer w.Flush()
	switch cmd {
	case "version":
		v, err := runtimeService(ctx).Version(ctx, "v1")
		if err != nil {
			fail("getting the runtime version: %v", err)
		}
		fmt.Printf("Version:  %s\nRuntimeName:  %s\nRuntimeVersion:  %s\nRuntimeApiVersion:  %s\n",
			v.Version, v.RuntimeName, v.RuntimeVersion, v.RuntimeApiVersion)
	case "info":
		st, err := runtimeService(ctx).Status(ctx, true)
		if err != nil {
			fail("getting status of runtime: %v", err)
		}
		out := map[string]any{"status": st.Status, "runtimeHandlers": st.RuntimeHandlers, "features": st.Features}
		for k, v := range st.Info {
			var x any
			if json.Unmarshal([]byte(v), &x) != nil {
				x = v
			}
			out[k] = x
		}
		printJSON(out)
	case "pods":
		items, err := runtimeService(ctx).ListPodSandbox(ctx, nil)
		if err != nil {
			fail("listing pod sandboxes: %v", err)
		}
		fmt.Fprintln(w, "POD ID\tCREATED\tSTATE\tNAME\tNAMESPACE\tATTEMPT\tRUNTIME")
		for _, p := range items {
			m := p.GetMetadata()
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", short(p.Id), ago(p.CreatedAt), strings.TrimPrefix(p.State.String(), "SANDBOX_"),
				m.GetName(), m.GetNamespace(), m.GetAttempt(), p.RuntimeHandler)
		}
	case "ps":
		filter := &runtimeapi.ContainerFilter{State: &runtimeapi.ContainerStateValue{State: runtimeapi.ContainerState_CONTAINER_RUNNING}}
		if len(args) > 0 && args[0] == "-a" {
			filter = nil
		}
		items, err := runtimeService(ctx).ListContainers(ctx, filter)
		if err != nil {
			fail("listing containers: %v", err)
		}
		fmt.Fprintln(w, "CONTAINER\tIMAGE\tCREATED\tSTATE\tNAME\tATTEMPT\tPOD ID")
		for _, c := range items {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", short(c.Id), c.GetImage().GetImage(), ago(c.CreatedAt),
				strings.TrimPrefix(c.State.String(), "CONTAINER_"), c.GetMetadata().GetName(), c.GetMetadata().GetAttempt(), short(c.PodSandboxId))
		}
	case "images":
		items, err := imageService(ctx).ListImages(ctx, nil)
		if err != nil {
			fail("listing images: %v", err)
		}
		fmt.Fprintln(w, "IMAGE\tTAG\tIMAGE ID\tSIZE")
		for _, im := range items {
			tags := im.RepoTags
			if len(tags) == 0 {
				tags = []string{"<none>:<none>"}
			}
			for _, t := range tags {
				i := strings.LastIndex(t, ":")
				fmt.Fprintf(w, "%s\t%s\t%s\t%d\n", t[:i], t[i+1:], short(strings.TrimPrefix(im.Id, "sha256:")), im.Size)
			}
		}
	case "pull":
		need(args, 1, "pull IMAGE")
		ref, err := imageService(ctx).PullImage(ctx, &runtimeapi.ImageSpec{Image: args[0]}, nil, nil)
		if err != nil {
			fail("pulling image: %v", err)
		}
		fmt.Printf("Image is up to date for %s\n", ref)
	case "inspecti":
		need(args, 1, "inspecti IMAGE")
		st, err := imageService(ctx).ImageStatus(ctx, &runtimeapi.ImageSpec{Image: args[0]}, true)
		if err != nil {
			fail("image status: %v", err)
		}
		if st.Image == nil {
			fail("no such image %q present", args[0])
		}
		printJSON(st)
	case "imagefsinfo":
		st, err := imageService(ctx).ImageFsInfo(ctx)
		if err != nil {
			fail("image fs info: %v", err)
		}
		printJSON(st)
	case "runp":
		need(args, 1, "runp POD.json")
		var pod runtimeapi.PodSandboxConfig
		readJSON(args[0], &pod)
		id, err := runtimeService(ctx).RunPodSandbox(ctx, &pod, "")
		if err != nil {
			fail("run pod sandbox: %v", err)
		}
		fmt.Println(id)
	case "create":
		pull := true
		if len(args) > 0 && args[0] == "--no-pull" {
			pull, args = false, args[1:]
		}
		need(args, 3, "create [--no-pull] POD_ID CTR.json POD.json")
		var ctr runtimeapi.ContainerConfig
		var pod runtimeapi.PodSandboxConfig
		readJSON(args[1], &ctr)
		readJSON(args[2], &pod)
		if pull {
			if _, err := imageService(ctx).PullImage(ctx, ctr.Image, nil, &pod); err != nil {
				fail("pulling image: %v", err)
			}
		}
		id, err := runtimeService(ctx).CreateContainer(ctx, args[0], &ctr, &pod)
		if err != nil {
			fail("creating container: %v", err)
		}
		fmt.Println(id)
	case "start", "rm", "stopp", "rmp":
		need(args, 1, cmd+" ID")
		rs := runtimeService(ctx)
		var err error
		switch cmd {
		case "start":
			err = rs.StartContainer(ctx, args[0])
		case "rm":
			err = rs.RemoveContainer(ctx, args[0])
		case "stopp":
			err = rs.StopPodSandbox(ctx, args[0])
		case "rmp":
			err = rs.RemovePodSandbox(ctx, args[0])
		}
		if err != nil {
			fail("%s %q: %v", cmd, args[0], err)
		}
		fmt.Println(args[0])
	case "stop":
		secs := int64(0)
		if len(args) > 1 && args[0] == "-t" {
			n, err := strconv.ParseInt(args[1], 10, 64)
			if err != nil {
				fail("stop -t: %v", err)
			}
			secs, args = n, args[2:]
		}
		need(args, 1, "stop [-t SECONDS] ID")
		if err := runtimeService(ctx).StopContainer(ctx, args[0], secs); err != nil {
			fail("stopping the container %q: %v", args[0], err)
		}
		fmt.Println(args[0])
	case "inspect":
		need(args, 1, "inspect ID")
		st, err := runtimeService(ctx).ContainerStatus(ctx, args[0], true)
		if err != nil {
			fail("getting the status of the container %q: %v", args[0], err)
		}
		printJSON(st)
	case "inspectp":
		need(args, 1, "inspectp ID")
		st, err := runtimeService(ctx).PodSandboxStatus(ctx, args[0], true)
		if err != nil {
			fail("getting the pod sandbox status for %q: %v", args[0], err)
		}
		printJSON(st)
	case "logs":
		need(args, 1, "logs ID")
		rs := runtimeService(ctx)
		st, err := rs.ContainerStatus(ctx, args[0], false)
		if err != nil {
			fail("getting the status of the container %q: %v", args[0], err)
		}
		path := st.GetStatus().GetLogPath()
		if path == "" {
			fail("the container has no log path")
		}
		if err := logs.ReadLogs(ctx, path, args[0], &logs.LogOptions{}, rs, os.Stdout, os.Stderr); err != nil {
			fail("reading the logs at %s: %v", path, err)
		}
	case "exec":
		if len(args) == 0 || args[0] != "-s" {
			fail("only exec -s (ExecSync) is implemented")
		}
		need(args, 3, "exec -s ID CMD...")
		stdout, stderr, err := runtimeService(ctx).ExecSync(ctx, args[1], args[2:], *timeout)
		os.Stdout.Write(stdout)
		os.Stderr.Write(stderr)
		if err != nil {
			var ee interface{ ExitStatus() int }
			if errors.As(err, &ee) {
				os.Exit(ee.ExitStatus())
			}
			fail("execing command in container synchronously: %v", err)
		}
	case "exec-url", "attach":
		// The streaming Exec and Attach: only the URL the runtime answers (crictl
		// `exec` without -s and `attach` then connect to it).
		need(args, 1, cmd+" ID [CMD...]")
		rs := runtimeService(ctx)
		var url string
		var err error
		if cmd == "attach" {
			var resp *runtimeapi.AttachResponse
			resp, err = rs.Attach(ctx, &runtimeapi.AttachRequest{ContainerId: args[0], Stdout: true, Stderr: true})
			url = resp.GetUrl()
		} else {
			var resp *runtimeapi.ExecResponse
			resp, err = rs.Exec(ctx, &runtimeapi.ExecRequest{ContainerId: args[0], Cmd: args[1:], Stdout: true, Stderr: true})
			url = resp.GetUrl()
		}
		if err != nil {
			fail("%s: %v", cmd, err)
		}
		fmt.Println(url)
	case "port-forward":
		need(args, 1, "port-forward POD_ID")
		resp, err := runtimeService(ctx).PortForward(ctx, &runtimeapi.PortForwardRequest{PodSandboxId: args[0], Port: []int32{80}})
		if err != nil {
			fail("port forward: %v", err)
		}
		fmt.Println(resp.GetUrl())
	case "rmi":
		need(args, 1, "rmi IMAGE")
		if err := imageService(ctx).RemoveImage(ctx, &runtimeapi.ImageSpec{Image: args[0]}); err != nil {
			fail("error of removing image %q: %v", args[0], err)
		}
		fmt.Printf("Deleted: %s\n", args[0])
	case "runtime-config":
		resp, err := runtimeService(ctx).RuntimeConfig(ctx)
		if err != nil {
			fail("runtime config: %v", err)
		}
		printJSON(resp)
	case "update":
		need(args, 3, "update --memory BYTES ID")
		if args[0] != "--memory" {
			fail("only update --memory BYTES ID is implemented")
		}
		n, err := strconv.ParseInt(args[1], 10, 64)
		if err != nil {
			fail("update --memory: %v", err)
		}
		if err := runtimeService(ctx).UpdateContainerResources(ctx, args[2], &runtimeapi.ContainerResources{Linux: &runtimeapi.LinuxContainerResources{MemoryLimitInBytes: n}}); err != nil {
			fail("updating container resources for %q: %v", args[2], err)
		}
		fmt.Println(args[2])
	case "reopen-log":
		need(args, 1, "reopen-log ID")
		if err := runtimeService(ctx).ReopenContainerLog(ctx, args[0]); err != nil {
			fail("reopen container log: %v", err)
		}
		fmt.Println(args[0])
	case "metricdescs":
		items, err := runtimeService(ctx).ListMetricDescriptors(ctx)
		if err != nil {
			fail("list metric descriptors: %v", err)
		}
		printJSON(items)
	case "metricsp":
		items, err := runtimeService(ctx).ListPodSandboxMetrics(ctx)
		if err != nil {
			fail("list pod sandbox metrics: %v", err)
		}
		printJSON(items)
	case "stats":
		items, err := runtimeService(ctx).ListContainerStats(ctx, nil)
		if err != nil {
			fail("listing container stats: %v", err)
		}
		printJSON(items)
	case "statsp":
		items, err := runtimeService(ctx).ListPodSandboxStats(ctx, nil)
		if err != nil {
			fail("listing pod sandbox stats: %v", err)
		}
		printJSON(items)
	case "events":
		fs := flag.NewFlagSet("events", flag.ExitOnError)
		dur := fs.Duration("for", 0, "stop after this long (0: until interrupted)")
		_ = fs.Parse(args)
		rs := runtimeService(ctx)
		ectx, cancel := context.WithCancel(ctx)
		if *dur > 0 {
			ectx, cancel = context.WithTimeout(ctx, *dur)
		}
		defer cancel()
		ch := make(chan *runtimeapi.ContainerEventResponse, 100)
		errc := make(chan error, 1)
		go func() {
			errc <- rs.GetContainerEvents(ectx, ch, func(runtimeapi.RuntimeService_GetContainerEventsClient) {
				fmt.Fprintln(os.Stderr, "cricheck: events stream established")
			})
		}()
		for {
			select {
			case ev := <-ch:
				b, _ := json.Marshal(map[string]any{"containerId": ev.ContainerId, "type": ev.ContainerEventType.String(),
					"createdAt": ev.CreatedAt, "sandboxId": ev.GetPodSandboxStatus().GetId(), "containers": len(ev.ContainersStatuses)})
				fmt.Println(string(b))
			case err := <-errc:
				if err != nil && !errors.Is(err, io.EOF) && ectx.Err() == nil {
					fail("getting container events: %v", err)
				}
				return
			case <-ectx.Done():
				return
			}
		}
	default:
		fail("unknown command %q", cmd)
	}
}
