package dev.sluice.node.resp;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The listening socket and its event loops: Netty's NIO transport, one thread accepting and one
 * thread per two CPUs serving connections (at least one), each connection on one loop for its life.
 * Nothing on a loop blocks: grid calls are asynchronous and come back to the loop, and the
 * pipeline's synchronous calls run on the front end's own executor.
 *
 * <p>Why Netty rather than a small NIO server of our own: its partial writes, writability water
 * marks, pooled buffers and frame accumulation are what the bad-input cases (half frames, clients
 * that never read, 10,000 idle connections) need to be right, and they are proven. Only its
 * transport is used; the RESP decoder and encoder are Sluice's ({@link RespDecoder}, {@link
 * ReplyEncoder}).
 */
final class RespServer implements AutoCloseable {
  private final EventLoopGroup acceptors;
  private final EventLoopGroup workers;
  private final Channel listening;

  private RespServer(EventLoopGroup acceptors, EventLoopGroup workers, Channel listening) {
    this.acceptors = acceptors;
    this.workers = workers;
    this.listening = listening;
  }

  /**
   * Listens on {@code host:port} (0: any free port).
   *
   * @param handler a new connection handler for each connection
   * @throws UncheckedIOException if the port cannot be bound (caused by a {@link BindException}
   *     when it is taken)
   */
  static RespServer start(
      String host,
      int port,
      RespLimits limits,
      RespStats stats,
      Supplier<? extends ChannelHandler> handler) {
    EventLoopGroup acceptors =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("sluice-resp-accept", true), NioIoHandler.newFactory());
    EventLoopGroup workers =
        new MultiThreadIoEventLoopGroup(
            Math.max(1, Runtime.getRuntime().availableProcessors() / 2),
            new DefaultThreadFactory("sluice-resp", true),
            NioIoHandler.newFactory());
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(acceptors, workers)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 4096)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childOption(
                ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(limits.outputLowWaterMark(), limits.outputHighWaterMark()))
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel channel) {
                    stats.connected(channel);
                    channel.pipeline().addLast(new RespDecoder(limits), handler.get());
                  }
                });
    try {
      Channel listening =
          bootstrap.bind(new InetSocketAddress(host, port)).syncUninterruptibly().channel();
      return new RespServer(acceptors, workers, listening);
    } catch (RuntimeException e) {
      acceptors.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      workers.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      throw e;
    }
  }

  int port() {
    return ((InetSocketAddress) listening.localAddress()).getPort();
  }

  /** Stops accepting connections; the open ones go on. */
  void stopListening() {
    listening.close().awaitUninterruptibly();
  }

  /** Stops accepting, and stops the event loops (closing what is still open on them). */
  @Override
  public void close() {
    stopListening();
    acceptors.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
  }
}
