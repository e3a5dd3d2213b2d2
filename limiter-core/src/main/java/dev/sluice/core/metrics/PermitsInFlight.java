package dev.sluice.core.metrics;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

/**
 * Concurrency permits taken through one limiter, as its callers hold them (docs/algorithms.md,
 * "Concurrency"):
 *
 * <ul>
 *   <li>{@code sluice_permits_total{event}}: {@code acquired} (an admission holding a permit id),
 *       {@code released} (given back by id), {@code expired} (never released: the holder forgot, or
 *       crashed and a restarted process counts nothing; the owner freed them after permitTtl).
 *   <li>{@code sluice_permits_in_flight}: permits acquired here and neither released nor expired.
 * </ul>
 *
 * A permit's expiry is read from its admission: an acquire that is not booked ahead holds the key's
 * latest permit, so its {@code resetAfter} is its own lifetime; a booked one's is its lifetime plus
 * the wait. Expiries are collected when the gauge is read or a permit is taken, so the map holds at
 * most the permits alive at once (bounded by the rules' limits times the keys in use).
 */
final class PermitsInFlight {
  static final String PERMITS = "sluice.permits";
  static final String IN_FLIGHT = "sluice.permits.in.flight";

  private final ConcurrentMap<String, Held> held = new ConcurrentHashMap<>();
  private final LongSupplier nanoClock;
  private final Counter acquired;
  private final Counter released;
  private final Counter expired;

  private record Held(long permits, long expiresAtNanos) {}

  PermitsInFlight(MeterRegistry registry, LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
    this.acquired = counter(registry, "acquired");
    this.released = counter(registry, "released");
    this.expired = counter(registry, "expired");
    Gauge.builder(IN_FLIGHT, this, PermitsInFlight::inFlight)
        .description("Concurrency permits acquired through this limiter, not released or expired")
        .register(registry);
  }

  /** Notes an admission that holds a permit id. */
  void acquired(Check check, Decision decision) {
    if (!decision.allowed() || decision.permitId() == 0 || decision.shadowDenied()) {
      return;
    }
    collectExpired();
    long expiresAt = nanoClock.getAsLong() + decision.resetAfterNanos();
    held.put(id(check.stateKey(), decision.permitId()), new Held(check.permits(), expiresAt));
    acquired.increment(check.permits());
  }

  /** Notes a release by id; an id not held here (released twice, expired) counts nothing. */
  void released(PolicyRef ref, String key, long permitId) {
    Held gone = held.remove(id(ref.stateKey(key), permitId));
    if (gone != null) {
      released.increment(gone.permits());
    }
  }

  private double inFlight() {
    collectExpired();
    long sum = 0;
    for (Held h : held.values()) {
      sum += h.permits();
    }
    return sum;
  }

  private void collectExpired() {
    long now = nanoClock.getAsLong();
    held.entrySet()
        .removeIf(
            e -> {
              boolean gone = e.getValue().expiresAtNanos() - now <= 0;
              if (gone) {
                expired.increment(e.getValue().permits());
              }
              return gone;
            });
  }

  private static String id(String stateKey, long permitId) {
    return permitId + "@" + stateKey;
  }

  private static Counter counter(MeterRegistry registry, String event) {
    return Counter.builder(PERMITS)
        .description("Concurrency permits acquired, released by id, or expired unreleased")
        .tag("event", event)
        .register(registry);
  }
}
