package dev.sluice.core.metrics;

import dev.sluice.core.Reservation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

/**
 * Reservations made through one limiter, as its callers hold them (DESIGN §7; docs/algorithms.md,
 * "Reservations"):
 *
 * <ul>
 *   <li>{@code sluice_reservations_total{event}}: {@code reserved} (an estimate taken and held),
 *       {@code committed} (settled at its actual cost through this limiter), {@code expired} (made
 *       here and not committed here before its ttl passed: the owner settled it at its estimate).
 *   <li>{@code sluice_reservations_open}: made here, neither committed here nor expired.
 * </ul>
 *
 * Counted where the reservation was made: one committed through another process (another REST node
 * behind a load balancer) counts {@code committed} there and {@code expired} here. The owner's
 * ledger, not these counters, decides what is settled. Expiries are collected when the gauge is
 * read or a reservation is made, so the map holds at most the reservations open at once.
 */
final class ReservationsOpen {
  static final String RESERVATIONS = "sluice.reservations";
  static final String OPEN = "sluice.reservations.open";

  private final ConcurrentMap<String, Long> open = new ConcurrentHashMap<>();
  private final LongSupplier nanoClock;
  private final Counter reserved;
  private final Counter committed;
  private final Counter expired;

  ReservationsOpen(MeterRegistry registry, LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
    this.reserved = counter(registry, "reserved");
    this.committed = counter(registry, "committed");
    this.expired = counter(registry, "expired");
    Gauge.builder(OPEN, this, ReservationsOpen::size)
        .description("Reservations made through this limiter, not committed or expired")
        .register(registry);
  }

  /** Notes a reservation; a denied one (no id) holds nothing. */
  void reserved(Reservation reservation, Duration ttl) {
    if (reservation.id() == null) {
      return;
    }
    collectExpired();
    open.put(reservation.id(), nanoClock.getAsLong() + ttl.toNanos());
    reserved.increment();
  }

  /** Notes a commit the owner settled. */
  void committed(String reservationId) {
    open.remove(reservationId);
    committed.increment();
  }

  /** Notes a commit refused because the reservation had expired: counted once, if made here. */
  void refusedAsExpired(String reservationId) {
    if (open.remove(reservationId) != null) {
      expired.increment();
    }
  }

  private double size() {
    collectExpired();
    return open.size();
  }

  private void collectExpired() {
    long now = nanoClock.getAsLong();
    open.entrySet()
        .removeIf(
            e -> {
              boolean gone = e.getValue() - now <= 0;
              if (gone) {
                expired.increment();
              }
              return gone;
            });
  }

  private static Counter counter(MeterRegistry registry, String event) {
    return Counter.builder(RESERVATIONS)
        .description("Reservations made, committed, or expired uncommitted")
        .tag("event", event)
        .register(registry);
  }
}
