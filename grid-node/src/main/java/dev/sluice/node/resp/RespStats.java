package dev.sluice.node.resp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the port has seen, for {@code INFO} and the metrics: the open connections (a channel group
 * that forgets a connection when it closes), how many came, and the commands and protocol errors.
 */
final class RespStats {
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final LongAdder connectionsReceived = new LongAdder();
  private final LongAdder commandsProcessed = new LongAdder();
  private final LongAdder protocolErrors = new LongAdder();
  private final long startedAtNanos = System.nanoTime();

  void connected(Channel channel) {
    connections.add(channel);
    connectionsReceived.increment();
  }

  void commandProcessed() {
    commandsProcessed.increment();
  }

  void protocolError() {
    protocolErrors.increment();
  }

  int connectedClients() {
    return connections.size();
  }

  long connectionsReceived() {
    return connectionsReceived.sum();
  }

  long commandsProcessed() {
    return commandsProcessed.sum();
  }

  long protocolErrors() {
    return protocolErrors.sum();
  }

  long uptimeSeconds() {
    return (System.nanoTime() - startedAtNanos) / 1_000_000_000L;
  }

  /** The most output bytes any connection has waiting for its client to read them. */
  long maxOutputBufferBytes() {
    long max = 0;
    for (Channel channel : connections) {
      ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
      if (buffer != null) {
        max = Math.max(max, buffer.totalPendingWriteBytes());
      }
    }
    return max;
  }

  /**
   * Connections whose commands are not being read now: their client has not taken its replies (or
   * has too many waiting), so the node waits for it before reading more.
   */
  int connectionsNotRead() {
    int paused = 0;
    for (Channel channel : connections) {
      if (channel.isActive() && !channel.config().isAutoRead()) {
        paused++;
      }
    }
    return paused;
  }

  /** Closes every connection (the node stops). */
  void closeAll() {
    connections.close().awaitUninterruptibly();
  }
}
