// Package cputime reads the process's CPU time for benchmarks.
package cputime
