/**
 * The load and peer comparison harness of issue 7. Start at {@link dev.sluice.bench.load.LoadBench}
 * (the scenarios, run by {@code benchmarks/run.sh [--quick]}), then {@link
 * dev.sluice.bench.load.LoadDriver} (the closed-loop generator every contender runs under) and
 * {@link dev.sluice.bench.load.Contender} (what a rate limiter must offer to be measured).
 *
 * <p>Peers: {@link dev.sluice.bench.load.Bucket4jContender} (Bucket4j on Hazelcast, embedded or
 * client, its member in {@link dev.sluice.bench.load.Bucket4jServer}), {@link
 * dev.sluice.bench.load.RedisSlidingWindow} (Redis + the Lua sliding window, via Lettuce) and
 * {@link dev.sluice.bench.load.CeilingServer} (the bare HTTP endpoint). Every server runs as its
 * own process ({@link dev.sluice.bench.load.ManagedProcess}); {@link dev.sluice.bench.load.Report}
 * writes {@code docs/benchmarks.md} and the plots.
 */
package dev.sluice.bench.load;
