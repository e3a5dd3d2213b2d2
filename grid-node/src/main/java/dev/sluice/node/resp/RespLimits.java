package dev.sluice.node.resp;

import java.time.Duration;

/**
 * What one connection may send and hold, so that a broken or hostile client costs a bounded amount
 * of memory and never holds up the others.
 *
 * @param maxBulkBytes the longest argument (a bulk string); Redis's own cap is 512 MB, this port's
 *     commands need a key of at most 512 bytes and a few numbers
 * @param maxArguments the most arguments one command may have, its name included
 * @param maxInlineBytes the longest inline command line (telnet, {@code redis-cli} without RESP)
 * @param incompleteFrameTimeout how long a command may stay half-sent before the connection is
 *     closed (with an error): a client that sends part of a frame and falls silent holds a buffer
 * @param maxPendingReplies replies a connection may have waiting (decided or not) before the node
 *     stops reading its commands until it has taken some
 * @param outputLowWaterMark output bytes below which a connection that stopped being read (its
 *     client does not take its replies) is read again
 * @param outputHighWaterMark output bytes above which the node stops reading a connection's
 *     commands: the output a client that never reads can pile up is this plus the replies of {@code
 *     maxPendingReplies} commands and of one socket read's
 */
public record RespLimits(
    int maxBulkBytes,
    int maxArguments,
    int maxInlineBytes,
    Duration incompleteFrameTimeout,
    int maxPendingReplies,
    int outputLowWaterMark,
    int outputHighWaterMark) {

  public RespLimits {
    if (maxBulkBytes < 1 || maxArguments < 1 || maxInlineBytes < 1 || maxPendingReplies < 1) {
      throw new IllegalArgumentException("limits must be at least 1");
    }
    if (incompleteFrameTimeout.isNegative() || incompleteFrameTimeout.isZero()) {
      throw new IllegalArgumentException("incompleteFrameTimeout must be positive");
    }
    if (outputLowWaterMark < 1 || outputHighWaterMark < outputLowWaterMark) {
      throw new IllegalArgumentException("0 < outputLowWaterMark <= outputHighWaterMark");
    }
  }

  /** 512 KiB arguments, 1,024 of them, 64 KiB inline lines, 10 s to finish a frame. */
  public static RespLimits defaults() {
    return new RespLimits(
        512 * 1024, 1024, 64 * 1024, Duration.ofSeconds(10), 1024, 32 * 1024, 64 * 1024);
  }

  /** The same limits, with another {@link #incompleteFrameTimeout}. */
  public RespLimits withIncompleteFrameTimeout(Duration timeout) {
    return new RespLimits(
        maxBulkBytes,
        maxArguments,
        maxInlineBytes,
        timeout,
        maxPendingReplies,
        outputLowWaterMark,
        outputHighWaterMark);
  }
}
