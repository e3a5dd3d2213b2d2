package dev.sluice.node;

import dev.sluice.core.grid.RegionLink;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.ToDoubleFunction;

/**
 * A region member's link to home on {@code /metrics} (docs/multi-region.md, "What to monitor"): its
 * state, its round trip, the budget held here, the refills, how global rules' checks were answered
 * and the denials answered while home could not be reached.
 */
final class RegionLinkMetrics {
  private RegionLinkMetrics() {}

  static void bind(RegionLink link, MeterRegistry registry) {
    String region = link.region();
    Gauge.builder("sluice_region_link_up", link, l -> l.state() == RegionLink.State.UP ? 1 : 0)
        .description("1 while this member's link to the home grid answers, 0 while it is down")
        .tag("region", region)
        .strongReference(true)
        .register(registry);
    Gauge.builder(
            "sluice_region_link_round_trip_seconds",
            link,
            l -> l.statistics().roundTripNanos() / 1e9)
        .description("Round trip of the link's calls to home (moving average)")
        .tag("region", region)
        .strongReference(true)
        .register(registry);
    Gauge.builder("sluice_region_budget_permits", link, l -> l.statistics().heldPermits())
        .description(
            "Permits of global rules that home admitted to this region, held on this member")
        .tag("region", region)
        .strongReference(true)
        .register(registry);
    counter(
        registry,
        link,
        "sluice_region_refills_total",
        "Budget refills home granted",
        s -> s.refills());
    counter(
        registry,
        link,
        "sluice_region_refill_failures_total",
        "Refills home did not answer in time",
        s -> s.refillFailures());
    counter(
        registry,
        link,
        "sluice_region_returned_permits_total",
        "Unused budget given back to home",
        s -> s.returnedPermits());
    counter(
        registry,
        link,
        "sluice_region_denials_while_waiting_total",
        "Global checks denied because the region held no budget and home could not answer",
        s -> s.deniedWhileWaiting());
    answered(registry, link, "budget", s -> s.answeredFromBudget());
    answered(registry, link, "home", s -> s.waitedOnHome());
    answered(registry, link, "denied_until", s -> s.answeredFromDenial());
    answered(registry, link, "budget_paced_wait", s -> s.deniedUntilUsable());
    answered(registry, link, "fail_open", s -> s.failOpen());
    answered(registry, link, "fail_closed", s -> s.failClosed());
    answered(registry, link, "local_share", s -> s.localShare());
  }

  private static void answered(
      MeterRegistry registry,
      RegionLink link,
      String by,
      ToDoubleFunction<RegionLink.Statistics> value) {
    FunctionCounter.builder(
            "sluice_region_decisions_total", link, l -> value.applyAsDouble(l.statistics()))
        .description(
            "Global rules' checks decided on this member: from the region's budget, after waiting"
                + " on home, denied until home's last denial of the key runs out, denied until the"
                + " budget's paced permits are usable, or by the rule's onHomeUnreachable")
        .tag("region", link.region())
        .tag("answered", by)
        .register(registry);
  }

  private static void counter(
      MeterRegistry registry,
      RegionLink link,
      String name,
      String description,
      ToDoubleFunction<RegionLink.Statistics> value) {
    FunctionCounter.builder(name, link, l -> value.applyAsDouble(l.statistics()))
        .description(description)
        .tag("region", link.region())
        .register(registry);
  }
}
