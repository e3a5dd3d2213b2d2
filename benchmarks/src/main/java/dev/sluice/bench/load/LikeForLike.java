package dev.sluice.bench.load;

import java.util.Locale;

/**
 * Which rows of a scenario compare with each other (docs/benchmarks.md, "How to read the figures").
 * A row is one of three kinds, read from its name:
 *
 * <ul>
 *   <li>{@link Kind#CALLER}: it may answer in the caller's own process. Sluice's client and
 *       embedded member with leases on (their default: any {@code "Sluice client"} or {@code
 *       "Sluice embedded"} row not marked {@code "(leases off)"}) and Bucket4j's {@code delaying}
 *       mode, which answers from a local copy of the bucket.
 *   <li>{@link Kind#CEILING}: not a limiter, a bound on what any contender can reach (the HTTP
 *       ceiling, the load driver alone, the ceiling of a design not built: any row whose name says
 *       "ceiling", and {@link DriverCeiling#NAME}).
 *   <li>{@link Kind#OWNER}: every other row; every call goes to the key's owner (Sluice with leases
 *       off, Bucket4j plain, batching and embedded, Redis + Lua) or, for a server front end (REST,
 *       Envoy RLS), crosses the network to the node.
 * </ul>
 *
 * A Sluice row and a peer compare when they are in the same group ({@link ContenderSpec#group()})
 * and either of the same kind or the peer is a ceiling. A decision answered in the caller is
 * reported beside the owner-path figure, never as a ratio to a peer that goes to the owner on every
 * call.
 */
final class LikeForLike {
  /** Where a row's decisions are made. */
  enum Kind {
    OWNER,
    CALLER,
    CEILING
  }

  private LikeForLike() {}

  static Kind kind(String name) {
    if (name.equals(DriverCeiling.NAME) || name.toLowerCase(Locale.ROOT).contains("ceiling")) {
      return Kind.CEILING;
    }
    boolean leasing =
        (name.startsWith("Sluice client") || name.startsWith("Sluice embedded"))
            && !name.contains(Contenders.leasesLabel(false));
    return leasing || name.contains("delaying") ? Kind.CALLER : Kind.OWNER;
  }

  /** Whether a ratio of {@code sluice} to {@code peer} compares like with like. */
  static boolean comparable(ContenderRun sluice, ContenderRun peer) {
    Kind peerKind = kind(peer.name());
    return sluice.group().equals(peer.group())
        && (peerKind == Kind.CEILING || peerKind == kind(sluice.name()));
  }
}
