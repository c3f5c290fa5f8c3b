"""Timing for the GPU tests' benchmarks: each callable launched in turn,
iters times, each launch between two CUDA events, after warm launches of
each; the median of each callable's times, in ms."""
import statistics

import torch


def median_ms(fns, iters=200, warm=20):
    for f in fns:
        for _ in range(warm):
            f()
    torch.cuda.synchronize()
    ev = [[(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
          for _ in fns]
    for i in range(iters):
        for j, f in enumerate(fns):
            s, e = ev[j][i]
            s.record()
            f()
            e.record()
    torch.cuda.synchronize()
    return [statistics.median(s.elapsed_time(e) for s, e in evj) for evj in ev]


def captured(f):
    """f captured into a CUDA graph, after a warm-up run on a side stream
    (the allocator's and cuBLAS's first calls stay out of the capture)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        f()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        f()
    return graph
