package dev.sluice.spring.web;

import dev.sluice.client.middleware.RateLimitGate;
import dev.sluice.spring.GateProperties;
import dev.sluice.spring.GateProperties.Position;
import java.util.ArrayList;
import java.util.List;

/**
 * The gates of {@code sluice.gates}, built once at start, each with the requests it limits. A
 * request that several gates match passes each in the order they are listed: it proceeds only if
 * every one lets it.
 */
public final class ConfiguredGates {

  /** Spring Security's filter chain order, in servlet and in WebFlux applications alike. */
  static final int SECURITY_ORDER = -100;

  /** One gate and the requests it limits. */
  record Entry(GateRoute route, RateLimitGate gate, Position position) {}

  private final List<Entry> entries;

  public ConfiguredGates(List<GateProperties> gates, GateFactory factory) {
    List<Entry> built = new ArrayList<>(gates.size());
    for (int i = 0; i < gates.size(); i++) {
      GateProperties gate = gates.get(i);
      String name = "sluice.gates[" + i + "]";
      built.add(new Entry(GateRoute.of(name, gate), factory.gate(i, gate), gate.position()));
    }
    this.entries = List.copyOf(built);
  }

  /** The filter order of the gates at {@code position}: just before or just after security. */
  public static int order(Position position) {
    return position == Position.BEFORE_SECURITY ? SECURITY_ORDER - 10 : SECURITY_ORDER + 10;
  }

  /** The gates at {@code position} that limit a request of {@code method} to {@code path}. */
  List<RateLimitGate> matching(Position position, String method, String path) {
    List<RateLimitGate> matched = new ArrayList<>(1);
    for (Entry entry : entries) {
      if (entry.position() == position && entry.route().matches(method, path)) {
        matched.add(entry.gate());
      }
    }
    return matched;
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }
}
