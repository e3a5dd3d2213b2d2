package dev.sluice.core.stats;

import java.util.List;

/**
 * What the leases held by a node (or several, summed) did since it started; see docs/client.md,
 * "Leases". Once the leases have ended, {@code permitsLeased = answeredLocally + returned +
 * expiredUnused}.
 *
 * @param granted leases the keys' owners granted
 * @param permitsLeased permits in them
 * @param answeredLocally permits handed to requests without a round trip to the owner
 * @param returned unused permits given back to the owner
 * @param expiredUnused unused permits not given back
 * @param deniedLocally requests a paced lease denied without a round trip
 */
public record LeaseTotals(
    long granted,
    long permitsLeased,
    long answeredLocally,
    long returned,
    long expiredUnused,
    long deniedLocally) {

  public static final LeaseTotals NONE = new LeaseTotals(0, 0, 0, 0, 0, 0);

  static LeaseTotals sum(List<LeaseTotals> nodes) {
    long[] s = new long[6];
    for (LeaseTotals n : nodes) {
      s[0] += n.granted;
      s[1] += n.permitsLeased;
      s[2] += n.answeredLocally;
      s[3] += n.returned;
      s[4] += n.expiredUnused;
      s[5] += n.deniedLocally;
    }
    return new LeaseTotals(s[0], s[1], s[2], s[3], s[4], s[5]);
  }
}
