// The patterns of bench/patterns.h with goroutines, as Go users write them
// (a sync.WaitGroup per parallel step). Threads = GOMAXPROCS. Same command
// line, same method, same JSON line as the C driver:
//
//	patterns_go --exp=NAME --threads=T [--quick] [--runs=R]
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

const n = 1000
const cjUnits = 256

var (
	threads int
	v       [n]float64
	m       []float64
	mn      int
	a       = 2.0
	hits    [64]int64
	epoch   = time.Now()
)

func now() float64 { return float64(time.Since(epoch).Nanoseconds()) }
func lo(n, k, parts int) int { return n * k / parts }
func hi(n, k, parts int) int { return n * (k + 1) / parts }

func scaleRange(l, h int) {
	for i := l; i < h; i++ {
		v[i] *= a
	}
}

func createJoin() (float64, float64) {
	var wg sync.WaitGroup
	t0 := now()
	wg.Add(threads)
	for i := 0; i < threads; i++ {
		go func(i int) { hits[i]++; wg.Done() }(i)
	}
	t1 := now()
	wg.Wait()
	return t1 - t0, now() - t1
}

func forLoop() {
	var wg sync.WaitGroup
	wg.Add(threads)
	for k := 0; k < threads; k++ {
		go func(k int) { scaleRange(lo(n, k, threads), hi(n, k, threads)); wg.Done() }(k)
	}
	wg.Wait()
}

func tasksSingle() {
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func(i int) { v[i] *= a; wg.Done() }(i)
	}
	wg.Wait()
}

func tasksParallel() {
	var wg sync.WaitGroup
	wg.Add(threads)
	for k := 0; k < threads; k++ {
		go func(k int) {
			var tasks sync.WaitGroup
			l, h := lo(n, k, threads), hi(n, k, threads)
			tasks.Add(h - l)
			for i := l; i < h; i++ {
				go func(i int) { v[i] *= a; tasks.Done() }(i)
			}
			tasks.Wait()
			wg.Done()
		}(k)
	}
	wg.Wait()
}

func nestedFor() {
	var wg sync.WaitGroup
	wg.Add(threads)
	for k := 0; k < threads; k++ {
		go func(k int) {
			for i := lo(mn, k, threads); i < hi(mn, k, threads); i++ {
				var inner sync.WaitGroup
				inner.Add(threads)
				for p := 0; p < threads; p++ {
					go func(i, p int) {
						row := m[i*mn : (i+1)*mn]
						for j := lo(mn, p, threads); j < hi(mn, p, threads); j++ {
							row[j] *= a
						}
						inner.Done()
					}(i, p)
				}
				inner.Wait()
			}
			wg.Done()
		}(k)
	}
	wg.Wait()
}

// Every creator goroutine (one per thread) creates cjUnits goroutines and
// waits for them, reps times; ns per unit, mean over the creators.
func createJoinPerStream(reps int) float64 {
	var wg sync.WaitGroup
	var ran int64
	each := make([]float64, threads)
	wg.Add(threads)
	for k := 0; k < threads; k++ {
		go func(k int) {
			t0 := now()
			for r := 0; r < reps; r++ {
				var units sync.WaitGroup
				units.Add(cjUnits)
				for i := 0; i < cjUnits; i++ {
					go func() { atomic.AddInt64(&ran, 1); units.Done() }()
				}
				units.Wait()
			}
			each[k] = (now() - t0) / float64(reps*cjUnits)
			wg.Done()
		}(k)
	}
	wg.Wait()
	check(ran == int64(reps*cjUnits*threads), "create_join_per_stream: units lost")
	sum := 0.0
	for _, e := range each {
		sum += e
	}
	return sum / float64(threads)
}

// Two goroutines per thread call runtime.Gosched() `yields` times each.
func yield(yields int) float64 {
	var wg sync.WaitGroup
	wg.Add(2 * threads)
	t0 := now()
	for k := 0; k < 2*threads; k++ {
		go func() {
			for i := 0; i < yields; i++ {
				runtime.Gosched()
			}
			wg.Done()
		}()
	}
	wg.Wait()
	return (now() - t0) / (2.0 * float64(yields))
}

func check(ok bool, what string) {
	if !ok {
		fmt.Fprintln(os.Stderr, "check failed:", what)
		os.Exit(1)
	}
}

func fill(x []float64) {
	for i := range x {
		x[i] = float64(i%977 + 1)
	}
}

func checkVec(x []float64, reps int) bool {
	f := 1.0
	if reps%2 == 1 {
		f = 2.0
	}
	for i := range x {
		if x[i] != float64(i%977+1)*f {
			return false
		}
	}
	return true
}

var done int

func rep(exp string) float64 {
	a = 2.0
	if done%2 == 1 {
		a = 0.5
	}
	t0 := now()
	switch exp {
	case "create", "join":
		hits = [64]int64{}
		c, j := createJoin()
		for i := 0; i < threads; i++ {
			check(hits[i] == 1, "a unit did not run exactly once")
		}
		done++
		if exp == "create" {
			return c
		}
		return j
	case "for_loop":
		forLoop()
	case "tasks_single":
		tasksSingle()
	case "tasks_parallel":
		tasksParallel()
	default:
		nestedFor()
	}
	dt := now() - t0
	done++
	if strings.HasPrefix(exp, "nested_for_") {
		check(checkVec(m, done), exp+": wrong result")
	} else {
		check(checkVec(v[:], done), exp+": wrong result")
	}
	return dt
}

func main() {
	exp, quick, runsArg := "", false, 0
	for _, arg := range os.Args[1:] {
		switch {
		case strings.HasPrefix(arg, "--exp="):
			exp = arg[6:]
		case strings.HasPrefix(arg, "--threads="):
			threads, _ = strconv.Atoi(arg[10:])
		case arg == "--quick":
			quick = true
		case strings.HasPrefix(arg, "--runs="):
			runsArg, _ = strconv.Atoi(arg[7:])
		default:
			fmt.Fprintln(os.Stderr, "unknown option", arg)
			os.Exit(2)
		}
	}
	if exp == "" || threads < 1 || threads > 64 {
		fmt.Fprintln(os.Stderr, "usage: patterns_go --exp=NAME --threads=1..64 [--quick]")
		os.Exit(2)
	}
	runtime.GOMAXPROCS(threads)
	fill(v[:])
	if strings.HasPrefix(exp, "nested_for_") {
		mn, _ = strconv.Atoi(exp[11:])
		m = make([]float64, mn*mn)
		fill(m)
	}
	runs := 15
	if quick {
		runs = 5
	}
	if runsArg > 0 && runsArg <= 64 {
		runs = runsArg
	}
	unit, scale := "us", 1e-3
	vals := make([]float64, runs)
	switch exp {
	case "create_join_per_stream", "yield":
		unit, scale = "ns", 1
		reps, yields := 1000, 200000
		if quick {
			reps, yields = 100, 20000
		}
		f := func() float64 {
			if exp == "yield" {
				return yield(yields)
			}
			return createJoinPerStream(reps)
		}
		f()
		for r := range vals {
			vals[r] = f()
		}
	case "create", "join", "for_loop", "tasks_single", "tasks_parallel", "nested_for_1000", "nested_for_100":
		if exp == "create" || exp == "join" {
			unit, scale = "ns", 1
		}
		// Warm-up for a few milliseconds; K from the fastest repetition
		// (as bench/patterns.h: one slow wake-up must not make K = 1).
		rep(exp)
		fastest, until := rep(exp), now()+5e6
		if quick {
			until = now() + 2e6
		}
		for i := 0; i < 3 || now() < until; i++ {
			if t := rep(exp); t < fastest {
				fastest = t
			}
		}
		if fastest < 50 {
			fastest = 50
		}
		k := int(1e6 / fastest)
		if k < 1 {
			k = 1
		}
		if k > 2000 {
			k = 2000
		}
		for r := range vals {
			sum := 0.0
			for i := 0; i < k; i++ {
				sum += rep(exp)
			}
			vals[r] = sum / float64(k) * scale
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown experiment", exp)
		os.Exit(2)
	}
	sort.Float64s(vals)
	med := vals[runs/2]
	if runs%2 == 0 {
		med = (vals[runs/2-1] + vals[runs/2]) / 2
	}
	strs := make([]string, runs)
	for i, x := range vals {
		strs[i] = strconv.FormatFloat(x, 'f', 4, 64)
	}
	fmt.Printf("{\"experiment\": \"%s\", \"runtime\": \"go\", \"threads\": %d, \"unit\": \"%s\", "+
		"\"median\": %.4f, \"min\": %.4f, \"max\": %.4f, \"runs\": %d, \"values\": [%s]}\n",
		exp, threads, unit, med, vals[0], vals[runs-1], runs, strings.Join(strs, ", "))
}
