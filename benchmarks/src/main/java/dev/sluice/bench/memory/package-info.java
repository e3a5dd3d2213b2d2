/**
 * What an active key costs in memory, measured like for like (issue 21; results and commands in
 * docs/memory.md).
 *
 * <p>Start with {@link dev.sluice.bench.memory.MemoryProbe}: one store (Sluice's real path, a
 * candidate design, Bucket4j, or Redis), 1,000,000 keys, heap growth after a full GC and a class
 * histogram diff attributed to the parts of an entry ({@link dev.sluice.bench.memory.Breakdown}).
 * {@link dev.sluice.bench.memory.MemoryReport} runs every configuration in its own JVM and prints
 * the tables.
 *
 * <p>The candidates are written here, not in limiter-core, so that each can be measured without
 * changing the product: {@link dev.sluice.bench.memory.CandidateProcessor} (one key per entry, with
 * the key encoding of {@link dev.sluice.bench.memory.KeyCodec}, the value encoding of {@link
 * dev.sluice.bench.memory.StateCodec}, TTL on or off), {@link
 * dev.sluice.bench.memory.BucketProcessor} over {@link dev.sluice.bench.memory.BucketTable} (many
 * keys per entry), and the sweep that replaces the TTL ({@link dev.sluice.bench.memory.Sweeper},
 * {@link dev.sluice.bench.memory.SweepProcessor}). {@link dev.sluice.bench.memory.ThroughputProbe}
 * and {@link dev.sluice.bench.memory.BucketCostProbe} measure what the candidates cost in time.
 */
@NullMarked
package dev.sluice.bench.memory;

import org.jspecify.annotations.NullMarked;
