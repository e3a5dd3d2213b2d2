package dev.sluice.core.test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Free TCP ports on 127.0.0.1 for tests: free when asked, and never handed out twice by this JVM.
 * Another process may still take one before the test binds it.
 *
 * <p>Chosen below the kernel's ephemeral range, never in it: a client that keeps reconnecting to a
 * port in that range while nothing listens there can be handed that very port as its own source
 * port, and TCP then connects the socket to itself (a client-mode node waited a minute on such a
 * connection to "its grid" while the real member started beside it).
 */
public final class LoopbackPorts {
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
  private static final Random RANDOM = new Random();
  private static final int LOWEST = 10_000;

  private LoopbackPorts() {}

  /** A port nothing listens on now, outside the ephemeral range. */
  public static int free() {
    int below = ephemeralLow();
    while (true) {
      int port = LOWEST + RANDOM.nextInt(below - LOWEST);
      if (HANDED_OUT.contains(port)) {
        continue;
      }
      try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        if (socket.getLocalPort() == port && HANDED_OUT.add(port)) {
          return port;
        }
      } catch (IOException taken) {
        // in use: try another
      }
    }
  }

  /** The first port of the kernel's ephemeral range (Linux's default, 32768, where unreadable). */
  private static int ephemeralLow() {
    try {
      String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
      int low = Integer.parseInt(range.split("\\s+")[0]);
      return low > LOWEST + 1_000 ? low : 32_768;
    } catch (IOException | RuntimeException unreadable) {
      return 32_768;
    }
  }
}
