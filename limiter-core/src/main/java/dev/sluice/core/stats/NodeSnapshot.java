package dev.sluice.core.stats;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What one node reports for the console: its series for the {@code seconds} seconds up to and
 * including {@code untilSecond} (epoch seconds, so that members' series line up), its totals, and
 * the keys it is denying now when asked for them. A member's answer also carries its {@link
 * MemberFacts}; a node that is a Hazelcast client has none.
 */
public record NodeSnapshot(
    String node,
    long untilSecond,
    int seconds,
    List<RuleRates> rates,
    LatencySeries latency,
    LeaseTotals leases,
    List<FrontEndTotals> frontEnds,
    Map<String, KeySummary> limitedKeys,
    long untrackedDenials,
    @Nullable MemberFacts member) {

  public NodeSnapshot {
    rates = List.copyOf(rates);
    frontEnds = List.copyOf(frontEnds);
    limitedKeys = Map.copyOf(limitedKeys);
  }

  /** The same snapshot, with the facts of the member that took it. */
  public NodeSnapshot withMember(MemberFacts facts) {
    return new NodeSnapshot(
        node,
        untilSecond,
        seconds,
        rates,
        latency,
        leases,
        frontEnds,
        limitedKeys,
        untrackedDenials,
        facts);
  }
}
