package dev.sluice.core.metrics;

import dev.sluice.core.lease.LeaseHolder;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * What a limiter's leases did, as counters read from its {@link LeaseHolder.Statistics}
 * (docs/client.md, "Leases" and "Metrics"):
 *
 * <ul>
 *   <li>{@code sluice_leases_granted_total}: leases the owners granted to this holder;
 *   <li>{@code sluice_lease_permits_total{outcome}}: their permits, by what became of them: {@code
 *       leased} (all of them), {@code answered_locally} (handed to requests here without a round
 *       trip), {@code returned} (unused, given back to the owner), {@code expired_unused} (unused
 *       and not given back: the owner was unreachable, the key was reset, or a lease to the end of
 *       the window ended, when a return would free nothing; they stay counted until their window
 *       has passed);
 *   <li>{@code sluice_lease_denials_total}: requests denied here by a paced lease before its next
 *       permit's instant, without a round trip (docs/client.md, "Leases");
 *   <li>{@code sluice_lease_renewals_total}: asks for a key's next lease sent ahead of the current
 *       lease's end (docs/client.md, "Leases": a big lease is renewed when a quarter is left).
 * </ul>
 *
 * Once a holder's leases have ended, {@code leased = answered_locally + returned + expired_unused}.
 */
public final class LeaseMetrics {
  public static final String GRANTED = "sluice.leases.granted";
  public static final String PERMITS = "sluice.lease.permits";
  public static final String RENEWALS = "sluice.lease.renewals";
  public static final String DENIALS = "sluice.lease.denials";

  private LeaseMetrics() {}

  /** Registers the counters of {@code statistics}, a holder's; nothing for none (no leases). */
  public static void bind(LeaseHolder.@Nullable Statistics statistics, MeterRegistry registry) {
    if (statistics == null) {
      return;
    }
    FunctionCounter.builder(GRANTED, statistics, s -> s.granted())
        .description("Leases the keys' owners granted to this holder")
        .register(registry);
    FunctionCounter.builder(RENEWALS, statistics, s -> s.renewals())
        .description("Asks for a key's next lease sent before the current one ran out")
        .register(registry);
    FunctionCounter.builder(DENIALS, statistics, s -> s.deniedLocally())
        .description("Requests a paced lease denied here before its next permit's instant")
        .register(registry);
    permits(registry, statistics, "leased", s -> s.permitsLeased());
    permits(registry, statistics, "answered_locally", s -> s.answeredLocally());
    permits(registry, statistics, "returned", s -> s.returned());
    permits(registry, statistics, "expired_unused", s -> s.expiredUnused());
  }

  private static void permits(
      MeterRegistry registry,
      LeaseHolder.Statistics statistics,
      String outcome,
      ToDoubleFunction<LeaseHolder.Statistics> count) {
    FunctionCounter.builder(PERMITS, statistics, count)
        .description("Permits of leases held here, by what became of them")
        .tag("outcome", outcome)
        .register(registry);
  }
}
