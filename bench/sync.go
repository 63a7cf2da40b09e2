// bench_sync's experiments with goroutines, for those Go expresses:
//
//	mutex_uncontended  sync.Mutex Lock + Unlock by one goroutine
//	mutex_contended    4 goroutines per P (GOMAXPROCS = s) incrementing a
//	                   shared counter under a sync.Mutex; time per increment
//	eventual_pingpong  two goroutines handing a token through unbuffered
//	                   channels (GOMAXPROCS 1, then 2); time per round trip
//	wake_latency       a goroutine parked on a channel, the program otherwise
//	                   idle: from the send to its first instruction, 1000
//	                   wake-ups 2 ms apart
//
// Go has no barrier (a WaitGroup is one-shot). Same JSON lines as
// bench_common.h's bench_report:
//
//	sync_go --streams=N [--quick]
package main

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const (
	uncOps    = 1000000
	contOps   = 200000 // increments in all, per run (as bench_sync.c)
	pingRound = 20000
)

var epoch = time.Now()

func now() float64 { return float64(time.Since(epoch).Nanoseconds()) }

func report(exp string, threads int, label string, v []float64) {
	sort.Float64s(v)
	n := len(v)
	med := v[n/2]
	if n%2 == 0 {
		med = (v[n/2-1] + v[n/2]) / 2
	}
	fmt.Printf("{\"experiment\": \"%s\", \"runtime\": \"go\", \"threads\": %d, \"unit\": \"ns\", "+
		"\"median\": %.4f, \"min\": %.4f, \"max\": %.4f, \"runs\": %d, \"label\": \"%s\"}\n",
		exp, threads, med, v[0], v[n-1], n, label)
}

// measure runs body `runs` times after a warm-up: ns per op.
func measure(runs int, ops float64, body func()) []float64 {
	v := make([]float64, runs)
	for r := -1; r < runs; r++ {
		t0 := now()
		body()
		if r >= 0 {
			v[r] = (now() - t0) / ops
		}
	}
	return v
}

func check(ok bool, what string) {
	if !ok {
		fmt.Fprintln(os.Stderr, "sync_go: check failed:", what)
		os.Exit(1)
	}
}

func main() {
	runs, maxs := 15, 2
	for _, arg := range os.Args[1:] {
		switch {
		case arg == "--quick":
			runs = 5
		case strings.HasPrefix(arg, "--streams="):
			maxs, _ = strconv.Atoi(arg[10:])
		default:
			fmt.Fprintln(os.Stderr, "unknown option", arg)
			os.Exit(2)
		}
	}
	if maxs < 2 {
		maxs = 2
	}
	var mu sync.Mutex

	runtime.GOMAXPROCS(1)
	report("mutex_uncontended", 1, "go (sync.Mutex)", measure(runs, uncOps, func() {
		for i := 0; i < uncOps; i++ {
			mu.Lock()
			mu.Unlock()
		}
	}))

	for s := 1; s <= maxs; s *= 2 {
		runtime.GOMAXPROCS(s)
		workers := 4 * s
		var counter int64
		v := measure(runs, contOps, func() {
			counter = 0
			var wg sync.WaitGroup
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < contOps/workers; i++ {
						mu.Lock()
						counter++
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			check(counter == int64(contOps/workers*workers), "mutex_contended count")
		})
		report("mutex_contended", s, "go (sync.Mutex, 4 goroutines per P)", v)
	}

	for s := 1; s <= 2; s++ {
		runtime.GOMAXPROCS(s)
		v := measure(runs, pingRound, func() {
			ping, pong := make(chan int), make(chan int)
			done := make(chan bool)
			go func() {
				for r := 0; r < pingRound; r++ {
					pong <- <-ping
				}
				done <- true
			}()
			for r := 0; r < pingRound; r++ {
				ping <- r
				check(<-pong == r, "ping-pong token")
			}
			<-done
		})
		report("eventual_pingpong", s, "go (unbuffered channels)", v)
	}

	// Wake-up: the receiver parks on its channel; the sender stamps the
	// time, sends and waits for the receiver's answer, as Go code would.
	// (Go may run the receiver on the sender's P then: a goroutine is not
	// tied to a P. A sender that spins instead of waiting leaves the
	// receiver queued behind it for milliseconds: not measured.)
	runtime.GOMAXPROCS(2)
	n := 1000
	if runs == 5 {
		n = 200
	}
	lat := make([]float64, n)
	var pushedAt int64
	wake, noted := make(chan int), make(chan bool)
	go func() {
		for i := range wake {
			lat[i] = now() - float64(atomic.LoadInt64(&pushedAt))
			noted <- true
		}
	}()
	for i := 0; i < n; i++ {
		time.Sleep(2 * time.Millisecond)
		atomic.StoreInt64(&pushedAt, int64(now()))
		wake <- i
		<-noted
	}
	close(wake)
	report("wake_latency", 2, "go (goroutine parked on a channel; the sender waits)", lat)
}
