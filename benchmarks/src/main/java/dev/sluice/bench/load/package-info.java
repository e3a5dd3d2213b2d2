/**
 * The load and peer comparison harness (issues 7, 15 and 18). Start at {@link
 * dev.sluice.bench.load.LoadBench}: its {@code SCENARIOS} list names one class per scenario (S1
 * embedded, S2 client, S3 hot key and the same key saturated, S4 attack, S5 REST under the Java
 * driver and wrk, S6 memory, S7 skewed keys, S8 gateway paths: REST, Envoy RLS over gRPC, {@code
 * /json}, S9 the Redis protocol, S10 two regions on a global rule), and each scenario lists its
 * contenders one line each from {@link dev.sluice.bench.load.Contenders}. Then {@link
 * dev.sluice.bench.load.Measurement} (warm-up and interleaved rounds), {@link
 * dev.sluice.bench.load.LoadDriver} (the closed-loop generator every Java-driven contender runs
 * under) and {@link dev.sluice.bench.load.Contender} (what a rate limiter must offer to be
 * measured, including the rule whose bound its admissions are judged against, see {@link
 * dev.sluice.bench.load.exactness}).
 *
 * <p>Peers: {@link dev.sluice.bench.load.Bucket4jContender} (Bucket4j on Hazelcast, embedded or
 * client, plain or with its {@code batching} or {@code delaying} optimization; its member in {@link
 * dev.sluice.bench.load.Bucket4jServer}), {@link dev.sluice.bench.load.RedisSlidingWindow} (Redis +
 * the Lua sliding window, via Lettuce) and {@link dev.sluice.bench.load.CeilingServer} (the bare
 * HTTP endpoint, driven by the Java driver and by {@link dev.sluice.bench.load.WrkRunner}). Every
 * server runs as its own process ({@link dev.sluice.bench.load.ManagedProcess}, {@link
 * dev.sluice.bench.load.Servers}); {@link dev.sluice.bench.load.Targets} judges the targets and
 * {@link dev.sluice.bench.load.Report} writes {@code docs/benchmarks.md} and the plots.
 */
package dev.sluice.bench.load;
