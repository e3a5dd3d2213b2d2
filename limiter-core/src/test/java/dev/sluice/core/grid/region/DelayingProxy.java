package dev.sluice.core.grid.region;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on 127.0.0.1 that stands for a long link between clusters: every byte is delivered
 * {@link #setRoundTrip half the round trip} after it arrived, in order, in each direction. {@link
 * #cut} closes every connection and refuses new ones until {@link #restore}.
 */
final class DelayingProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int targetPort;
  private final AtomicLong oneWayNanos = new AtomicLong();
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private volatile boolean cut;
  private volatile boolean closed;

  DelayingProxy(int targetPort, long roundTripMillis) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    setRoundTrip(roundTripMillis);
    Thread acceptor = new Thread(this::accept, "proxy-accept-" + port());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  void setRoundTrip(long roundTripMillis) {
    oneWayNanos.set(TimeUnit.MILLISECONDS.toNanos(roundTripMillis) / 2);
  }

  /** Closes every connection through the proxy and refuses new ones. */
  void cut() {
    cut = true;
    for (Socket socket : open) {
      closeQuietly(socket);
    }
    open.clear();
  }

  void restore() {
    cut = false;
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        if (cut) {
          closeQuietly(client);
          continue;
        }
        Socket target = new Socket();
        target.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2_000);
        client.setTcpNoDelay(true);
        target.setTcpNoDelay(true);
        open.add(client);
        open.add(target);
        pump(client, target);
        pump(target, client);
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private record Chunk(long dueNanos, byte[] bytes) {}

  /** Reads {@code from} on one thread and writes each chunk to {@code to} when due on another. */
  private void pump(Socket from, Socket to) {
    LinkedBlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              byte[] buffer = new byte[64 * 1024];
              try (InputStream in = from.getInputStream()) {
                int read;
                while ((read = in.read(buffer)) > 0) {
                  byte[] bytes = new byte[read];
                  System.arraycopy(buffer, 0, bytes, 0, read);
                  queue.put(new Chunk(System.nanoTime() + oneWayNanos.get(), bytes));
                }
              } catch (IOException | InterruptedException e) {
                // closed
              } finally {
                queue.offer(new Chunk(0, new byte[0]));
              }
            },
            "proxy-read");
    Thread writer =
        new Thread(
            () -> {
              try (OutputStream out = to.getOutputStream()) {
                while (true) {
                  Chunk chunk = queue.take();
                  if (chunk.bytes().length == 0) {
                    break;
                  }
                  long wait = chunk.dueNanos() - System.nanoTime();
                  if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                  }
                  out.write(chunk.bytes());
                  out.flush();
                }
              } catch (IOException | InterruptedException e) {
                // closed
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "proxy-write");
    reader.setDaemon(true);
    writer.setDaemon(true);
    reader.start();
    writer.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    cut();
    server.close();
  }
}
