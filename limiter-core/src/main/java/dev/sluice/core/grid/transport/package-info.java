/**
 * How an entry processor reaches the member that owns its key: the one seam between Sluice's grid
 * runtime and Hazelcast's invocation machinery, and the only package allowed Hazelcast's internal
 * APIs (a test enforces it).
 *
 * <p>Start here: {@link dev.sluice.core.grid.transport.GridTransport}; {@link
 * dev.sluice.core.grid.transport.InternalTransport} is the default, {@link
 * dev.sluice.core.grid.transport.PublicApiTransport} its twin on the public API alone. A client's
 * batch for one member travels as one message ({@link
 * dev.sluice.core.grid.transport.DecideBatchCodec}, answered by {@link
 * dev.sluice.core.grid.transport.DecideBatchMessageTask}); docs/grid.md has what each internal call
 * measurably saves.
 */
@NullMarked
package dev.sluice.core.grid.transport;

import org.jspecify.annotations.NullMarked;
