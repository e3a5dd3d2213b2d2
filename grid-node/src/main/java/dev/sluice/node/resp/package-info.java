/**
 * The Redis protocol front end (docs/resp.md): RESP2 and RESP3 on {@code SLUICE_RESP_PORT}, for any
 * Redis client. {@code CL.THROTTLE} answers as redis-cell does, {@code GCRA} as Redis's unstable
 * branch does, {@code SLUICE.*} with the REST API's semantics; a connection's pipelined commands
 * are decided together through the node's one decision pipeline.
 *
 * <p>Where to start: {@link dev.sluice.node.resp.RespFrontEnd} (start and stop), {@link
 * dev.sluice.node.resp.CommandTable} (every command, as a table), {@link
 * dev.sluice.node.resp.ConnectionHandler} (order, batching and back-pressure of one connection),
 * {@link dev.sluice.node.resp.RespDecoder} (what a client may send). Like every front end it parses
 * its wire format into the pipeline's {@code Check}s and writes the pipeline's answers back; it
 * decides nothing itself.
 */
@NullMarked
package dev.sluice.node.resp;

import org.jspecify.annotations.NullMarked;
