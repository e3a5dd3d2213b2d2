package dev.sluice.core.metrics;

import dev.sluice.core.Reservation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Reservations, each counted once, where it happens (docs/algorithms.md, "Reserve, then commit"):
 *
 * <ul>
 *   <li>{@code sluice_reservations_total{event}}: {@code reserved} (an estimate taken and held,
 *       through this limiter) and {@code committed} (settled at its actual cost, through this
 *       limiter), counted by the caller;
 *   <li>{@code sluice_reservations_expired_total}: reservations whose ttl passed uncommitted,
 *       settled at their estimate, counted where the key's state is stored (the owning member, the
 *       local limiter) when it drops them; registered only by a runtime that stores states.
 * </ul>
 *
 * Summed over every process of a deployment, {@code reserved - committed - expired} is the number
 * of reservations open, exactly: each is counted once, wherever it was made, committed or expired.
 * (A process's own counts say what went through it; a reservation made on one node and committed on
 * another counts on both, once each.)
 */
final class ReservationMetrics {
  static final String RESERVATIONS = "sluice.reservations";
  static final String EXPIRED = "sluice.reservations.expired";

  private final Counter reserved;
  private final Counter committed;

  /**
   * @param expired reservations settled at their estimate where this runtime stores states; null
   *     where it stores none (a client), and {@code sluice_reservations_expired_total} is not
   *     registered
   */
  ReservationMetrics(@Nullable LongSupplier expired, MeterRegistry registry) {
    this.reserved = counter(registry, "reserved");
    this.committed = counter(registry, "committed");
    if (expired != null) {
      FunctionCounter.builder(EXPIRED, expired, LongSupplier::getAsLong)
          .description(
              "Reservations on the keys stored here whose ttl passed uncommitted: settled at"
                  + " their estimate")
          .register(registry);
    }
  }

  /** Notes a reservation; a denied one (no id) holds nothing. */
  void reserved(Reservation reservation) {
    if (reservation.id() != null) {
      reserved.increment();
    }
  }

  /** Notes a commit the owner settled. */
  void committed() {
    committed.increment();
  }

  private static Counter counter(MeterRegistry registry, String event) {
    return Counter.builder(RESERVATIONS)
        .description("Reservations made and committed through this limiter")
        .tag("event", event)
        .register(registry);
  }
}
