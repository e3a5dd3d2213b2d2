package dev.sluice.bench.load;

import dev.sluice.core.Durations;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * S8, gateway paths (issue 19): one grid node process answers the same decision three ways, and the
 * rows show what each front end costs: {@code POST /v1/check} (Sluice's REST API, named rule {@code
 * bench}), Envoy's rate limit service over gRPC ({@link RlsContender}, the call Envoy, Istio and
 * Envoy Gateway make) and the peer's {@code POST /json} on the REST port. The same {@link
 * LoadDriver} (16 threads, the S5 keys), the same limit nothing reaches (sliding_window
 * 1,000,000/1s per key), rounds interleaved. Every admission is judged against that limit, so each
 * row has its over-admitted count beside its throughput (0, since nothing comes near the limit).
 *
 * <p>envoyproxy/ratelimit itself (Go, with Redis) has a row that says why it did not run: the
 * harness cannot start it ({@link #peerAbsence}).
 *
 * <p>Run it alone with {@code benchmarks/run.sh --no-build --only S8 --doc
 * benchmarks/target/s8/benchmarks-s8.md} (about 2 minutes; the {@code --quick} run includes it in
 * about 7 s), after {@code ./mvnw -q -DskipTests package}.
 */
final class GatewayScenario implements Scenario {
  static final String GROUP = "gateway";
  static final String REST = "Sluice REST POST /v1/check";
  static final String RLS = "Sluice Envoy RLS (gRPC ShouldRateLimit)";
  static final String JSON = "Sluice Envoy POST /json";
  static final String PEER = "envoyproxy/ratelimit (gRPC, Redis)";

  @Override
  public String id() {
    return "S8";
  }

  @Override
  public void run(BenchContext context) {
    BenchRule rule = BenchRule.BENCH;
    Workload load =
        context.settings().workload(16, KeySpace.uniform("k", 10_000)).countingExactness();
    ScenarioResult s =
        new ScenarioResult(
            "S8",
            "Gateway paths: REST, Envoy RLS over gRPC and POST /json on one grid node",
            "One grid node (`sluice-node.jar`, its own JVM) serves the same limit three ways, and"
                + " the Java driver (16 threads, "
                + load.keys().description()
                + ", the keys of S5) asks each in turn, rounds interleaved: `POST /v1/check` with"
                + " `{\"rule\":\"bench\",\"key\":...,\"cost\":1}` (HTTP/1.1, one connection per"
                + " thread); Envoy's `envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit`"
                + " on the node's RLS port through Envoy's generated stubs (grpc-java, blocking"
                + " stub, "
                + RlsContender.CHANNELS
                + " HTTP/2 connections, one descriptor `"
                + RlsContender.DESCRIPTOR_KEY
                + "=<key>` in domain `"
                + RlsContender.DOMAIN
                + "` per call); and the same request as JSON on `POST /json` on the REST port. The"
                + " Envoy config gives that descriptor "
                + rule.describe()
                + " per value, the limit of rule `bench`: a limit nothing reaches, so every row"
                + " measures the cost of an admitting decision. An RLS answer that names no"
                + " matched limit (an OK that counted nothing) counts as an error.");
    Measurement.run(
        context,
        s,
        load,
        rule,
        List.of(
            ContenderSpec.driven(
                REST,
                GROUP,
                (c, r) ->
                    new HttpCheckContender(
                        REST, c.servers().node().restPort(), r.name(), load.keys(), r.policy())),
            ContenderSpec.driven(
                RLS,
                GROUP,
                (c, r) ->
                    new RlsContender(RLS, c.servers().node().rlsPort(), load.keys(), r.policy())),
            ContenderSpec.driven(
                JSON,
                GROUP,
                (c, r) ->
                    HttpCheckContender.envoyJson(
                        JSON, c.servers().node().restPort(), load.keys(), r.policy())),
            new ContenderSpec(
                PEER,
                GROUP,
                (c, r) -> {
                  throw new Servers.NotRunException(peerAbsence());
                })));
    s.note(overLimitNote(s, rule, load));
    ratioNote(s, RLS).ifPresent(s::note);
    ratioNote(s, JSON).ifPresent(s::note);
    context.report().scenario(s);
  }

  /**
   * Why envoyproxy/ratelimit has no row: it is a Go program (source, or a container image) that
   * needs Redis, and the harness starts only what it can build or install here.
   */
  static String peerAbsence() {
    if (onPath("ratelimit")) {
      return "a `ratelimit` binary is on PATH, but starting envoyproxy/ratelimit (with the Redis and"
          + " the runtime config directory it needs) is not automated in the harness";
    }
    return "envoyproxy/ratelimit is not installed: no `ratelimit` binary on PATH"
        + (onPath("go") ? "" : " and no Go toolchain to build one")
        + " (it is a Go program, shipped as source and a container image, and needs Redis; run.sh"
        + " installs only OS packages and starts no containers)";
  }

  private static boolean onPath(String tool) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }

  /**
   * The over-limit answers of every row (gRPC OVER_LIMIT, HTTP 429), counted, with why they are 0
   * when they are.
   */
  static String overLimitNote(ScenarioResult s, BenchRule rule, Workload load) {
    List<String> counts = new ArrayList<>();
    long all = 0;
    for (ContenderRun run : s.measured()) {
      long denied = run.total(Outcome.DENIED) + run.total(Outcome.DENIED_LOCALLY);
      all += denied;
      counts.add(String.format(Locale.ROOT, "%s %,d", run.name(), denied));
    }
    if (counts.isEmpty()) {
      return "No row ran, so there are no over-limit answers to count.";
    }
    return "Over-limit answers (gRPC `OVER_LIMIT`, HTTP 429), all measured rounds: "
        + String.join(", ", counts)
        + (all == 0
            ? String.format(
                Locale.ROOT,
                ". They are 0, and so is over-admitted, because the limit (%,d per key per %s) is"
                    + " far above what %d threads send on %,d keys: nothing reaches it.",
                rule.limit(),
                Durations.format(rule.window()),
                load.threads(),
                load.keys().size())
            : ".");
  }

  /** {@code row} over the REST row in the same run: throughput and p99. */
  static Optional<String> ratioNote(ScenarioResult s, String row) {
    Optional<ContenderRun> rest = s.run(REST);
    Optional<ContenderRun> other = s.run(row);
    if (rest.isEmpty() || other.isEmpty() || rest.get().medianThroughput() == 0) {
      return Optional.empty();
    }
    return Optional.of(
        String.format(
            Locale.ROOT,
            "%s / %s, this run: throughput %s, p99 %s.",
            row,
            REST,
            Report.times(other.get().medianThroughput() / rest.get().medianThroughput()),
            Report.times(
                other.get().medianPercentileMicros(99)
                    / Math.max(0.001, rest.get().medianPercentileMicros(99)))));
  }
}
