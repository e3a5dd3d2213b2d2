package dev.sluice.bench.load;

import dev.sluice.bench.load.Bucket4jContender.Mode;
import dev.sluice.client.SluiceClient;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * Every contender the scenarios can list, one factory each. A scenario's contender list reads one
 * line per contender, and a new contender is one more line there, for example Sluice with a client
 * option changed:
 *
 * <pre>
 *   Contenders.sluiceClient("Sluice client (no coalescing)", builder -> builder.coalescing(false)),
 * </pre>
 *
 * Names starting with "Sluice" are Sluice; the report prints the ratio of each to each peer in its
 * group. Leases (docs/algorithms.md, "Leases") are on by default in both runtimes; {@link
 * #sluiceClient(boolean)} and {@link #sluiceEmbedded(boolean)} name the setting in the row, for the
 * scenarios that compare leases on with leases off (S1, S2, S3, S7).
 */
public final class Contenders {
  /** Group of contenders that decide through a client of a server in another process. */
  public static final String CLIENT = "client";

  /** Group of contenders that decide on a member in the load JVM. */
  public static final String EMBEDDED = "embedded";

  private Contenders() {}

  /** The load driver with a contender that answers at once ({@link DriverCeiling}). */
  public static ContenderSpec driverCeiling() {
    return ContenderSpec.driven(
        DriverCeiling.NAME, CLIENT, (context, rule) -> new DriverCeiling(rule));
  }

  /** A Sluice member in the load JVM, alone in its cluster. */
  public static ContenderSpec sluiceEmbedded() {
    return ContenderSpec.driven(
        "Sluice embedded",
        EMBEDDED,
        (context, rule) ->
            SluiceContenders.embedded(
                "Sluice embedded", "bench-" + UUID.randomUUID(), ManagedProcess.freePort(), rule));
  }

  /**
   * A Sluice member in the load JVM with leases on (the default) or off, named {@code "Sluice
   * embedded (leases on)"} or {@code "(leases off)"}.
   */
  public static ContenderSpec sluiceEmbedded(boolean leases) {
    return sluiceEmbedded("Sluice embedded " + leasesLabel(leases), leases);
  }

  /**
   * {@link #sluiceEmbedded(boolean)} named for the algorithm of the rule it is given ({@link
   * ContenderSpec#withRule}).
   */
  public static ContenderSpec sluiceEmbedded(boolean leases, String algorithm) {
    return sluiceEmbedded(
        "Sluice embedded (" + algorithm + ", " + leasesWord(leases) + ")", leases);
  }

  private static ContenderSpec sluiceEmbedded(String name, boolean leases) {
    return ContenderSpec.driven(
        name,
        EMBEDDED,
        (context, rule) ->
            SluiceContenders.embedded(
                name, "bench-" + UUID.randomUUID(), ManagedProcess.freePort(), rule, leases));
  }

  /**
   * Sluice's embedded member with the state storage it had before issue 21, for a same-run
   * comparison: values serialized in a BINARY map and a TTL on every write.
   */
  public static ContenderSpec sluiceEmbeddedTtlStorage() {
    String name = "Sluice embedded, storage before issue 21 (BINARY, TTL per entry)";
    return ContenderSpec.driven(
        name,
        EMBEDDED,
        (context, rule) ->
            SluiceContenders.embeddedTtlStorage(
                name, "bench-" + UUID.randomUUID(), ManagedProcess.freePort(), rule));
  }

  /**
   * Sluice's client SDK with leases on (its default) or off ({@link SluiceClient.Builder#leases}),
   * every other option its default, named {@code "Sluice client (leases on)"} or {@code "(leases
   * off)"}.
   */
  public static ContenderSpec sluiceClient(boolean leases) {
    return sluiceClient("Sluice client " + leasesLabel(leases), b -> b.leases(leases));
  }

  /**
   * Sluice's client SDK with or without leases, named for the algorithm of the rule it is given
   * ({@link ContenderSpec#withRule}).
   */
  public static ContenderSpec sluiceClient(boolean leases, String algorithm) {
    return sluiceClient(
        "Sluice client (" + algorithm + ", " + leasesWord(leases) + ")", b -> b.leases(leases));
  }

  private static String leasesWord(boolean leases) {
    return leases ? "leases on" : "leases off";
  }

  /** {@code "(leases on)"} or {@code "(leases off)"}: how a row names the setting. */
  static String leasesLabel(boolean leases) {
    return "(" + leasesWord(leases) + ")";
  }

  /** Sluice's client SDK with its defaults, connected to the run's grid node. */
  public static ContenderSpec sluiceClient() {
    return sluiceClient("Sluice client", UnaryOperator.identity());
  }

  /**
   * Sluice's client SDK named {@code name}, with the scenario's rule (see {@link
   * ContenderSpec#withRule}).
   */
  public static ContenderSpec sluiceClient(String name) {
    return sluiceClient(name, UnaryOperator.identity());
  }

  /** Sluice's client SDK with {@code options} applied to its builder. */
  public static ContenderSpec sluiceClient(
      String name, UnaryOperator<SluiceClient.Builder> options) {
    return ContenderSpec.driven(
        name,
        CLIENT,
        (context, rule) -> {
          Servers.Node node = context.servers().node();
          return SluiceContenders.client(
              name, node.clusterName(), node.memberPort(), rule, options);
        });
  }

  /**
   * The ceiling of a design not built ({@link PartitionBudgetCeiling}): what S7 could reach if the
   * keys far from their limit were answered locally once per key and 100 ms. Not exact, never a
   * Sluice row.
   */
  public static ContenderSpec partitionBudgetCeiling() {
    return ContenderSpec.driven(
        PartitionBudgetCeiling.NAME,
        CLIENT,
        (context, rule) -> {
          Servers.Node node = context.servers().node();
          return new PartitionBudgetCeiling(
              SluiceContenders.sdk(node.clusterName(), node.memberPort(), UnaryOperator.identity()),
              rule);
        });
  }

  /** Bucket4j on a member in the load JVM, configured like Sluice's. */
  public static ContenderSpec bucket4jEmbedded() {
    return ContenderSpec.driven(
        "Bucket4j embedded",
        EMBEDDED,
        (context, rule) ->
            Bucket4jContender.embedded(
                "Bucket4j embedded",
                "bench-b4j-" + UUID.randomUUID(),
                ManagedProcess.freePort(),
                context.stateMap().backupCount(),
                context.stateMap().format(),
                rule));
  }

  /** Bucket4j through the run's Hazelcast client, one proxy per key, in {@code mode}. */
  public static ContenderSpec bucket4jClient(Mode mode) {
    return bucket4jClient(mode, 1);
  }

  /**
   * Bucket4j through the run's Hazelcast client in {@code mode}, with {@code holders} independent
   * proxies per key (that many application instances; see {@link Bucket4jContender}).
   */
  public static ContenderSpec bucket4jClient(Mode mode, int holders) {
    List<String> qualifiers = new ArrayList<>();
    if (mode != Mode.PLAIN) {
      qualifiers.add(mode.label());
    }
    if (holders > 1) {
      qualifiers.add(holders + " holders");
    }
    String name =
        "Bucket4j client"
            + (qualifiers.isEmpty() ? "" : " (" + String.join(", ", qualifiers) + ")");
    return ContenderSpec.driven(
        name,
        CLIENT,
        (context, rule) ->
            Bucket4jContender.client(
                name,
                context
                    .servers()
                    .bucket4jClient(
                        context.stateMap().backupCount(), context.stateMap().format().name()),
                rule,
                mode,
                holders));
  }

  /** Redis with the Lua sliding window, through one shared Lettuce connection. */
  public static ContenderSpec redisLua() {
    return ContenderSpec.driven(
        "Redis + Lua",
        CLIENT,
        (context, rule) -> new RedisSlidingWindow("Redis + Lua", context.servers().redis(), rule));
  }
}
