package dev.sluice.helm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A pod network for two pods, made with {@code ip} (iproute2) alone: two network namespaces, each
 * with loopback and one end of a veth pair, one address each in a private /24. A container joins
 * one with {@code podman run --network ns:<path>}: it has its own IP and the chart's ports, as a
 * pod has, and no port is published, so podman adds no firewall tables (they slow every loopback
 * connection on the machine) and nothing outside the two namespaces can reach them.
 *
 * <p>Needs root ({@code CAP_NET_ADMIN}), as podman's own rootful networks do. {@link #close}
 * deletes both namespaces, and the veth pair with them.
 */
final class PodNetwork implements AutoCloseable {

  private static final Duration COMMAND = Duration.ofSeconds(30);

  /** One pod's end: its namespace and its IP. */
  record Pod(String namespace, String ip) {
    /** For {@code podman run --network}. */
    String podmanNetwork() {
      return "ns:/run/netns/" + namespace;
    }

    /** {@code command}, run on the host inside this pod's network namespace. */
    List<String> inside(List<String> command) {
      List<String> inside = new ArrayList<>(List.of("nsenter", "--net=/run/netns/" + namespace));
      inside.addAll(command);
      return inside;
    }
  }

  private final List<Pod> pods = new ArrayList<>();

  /**
   * Two joined pods named {@code sluice-<run>-0} and {@code -1}; {@code run} is a short unique id
   * (8 hex digits: interface names have at most 15 characters).
   */
  PodNetwork(String run) {
    try {
      // 10.244.0.0/16 is a common pod CIDR; the addresses exist only inside the two namespaces.
      for (int i = 0; i < 2; i++) {
        Pod pod = new Pod("sluice-" + run + "-" + i, "10.244.0." + (i + 1));
        ip("netns", "add", pod.namespace());
        pods.add(pod);
      }
      ip(
          "link",
          "add",
          "sl" + run + "a",
          "netns",
          pods.get(0).namespace(),
          "type",
          "veth",
          "peer",
          "name",
          "sl" + run + "b",
          "netns",
          pods.get(1).namespace());
      for (int i = 0; i < 2; i++) {
        String namespace = pods.get(i).namespace();
        String device = "sl" + run + (i == 0 ? "a" : "b");
        ip("-n", namespace, "addr", "add", pods.get(i).ip() + "/24", "dev", device);
        ip("-n", namespace, "link", "set", device, "up");
        ip("-n", namespace, "link", "set", "lo", "up");
      }
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  Pod pod(int ordinal) {
    return pods.get(ordinal);
  }

  @Override
  public void close() {
    for (Pod pod : pods) {
      Podman.exec(COMMAND, List.of("ip", "netns", "delete", pod.namespace()));
    }
    pods.clear();
  }

  private static void ip(String... args) {
    List<String> command = new ArrayList<>(List.of("ip"));
    command.addAll(List.of(args));
    Podman.exec(COMMAND, command).ok();
  }
}
