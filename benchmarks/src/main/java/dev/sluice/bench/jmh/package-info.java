/**
 * JMH microbenchmarks: the cost of one decision per algorithm ({@link
 * dev.sluice.bench.jmh.AlgorithmBenchmark}) and of one {@code LocalRateLimiter} call ({@link
 * dev.sluice.bench.jmh.LocalRateLimiterBenchmark}). Each class's Javadoc has its run command;
 * results are in {@code docs/decisions/algorithm-cost.md}.
 */
package dev.sluice.bench.jmh;
