package dev.sluice.bench.load;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * S5: {@code POST /v1/check} on a grid node against the HTTP ceiling (a bare Javalin endpoint that
 * answers the node's own answer), under two load generators in the same run, rounds interleaved:
 * the Java driver (16 threads, {@code java.net.http}) and wrk (2 threads, 16 connections). Each
 * generator's pair is one ratio; the report gives both.
 */
final class RestScenario implements Scenario {
  static final String JAVA = "Java driver";
  static final String WRK = "wrk";

  @Override
  public String id() {
    return "S5";
  }

  @Override
  public void run(BenchContext context) {
    BenchRule rule = BenchRule.BENCH;
    Workload load = context.settings().workload(16, KeySpace.uniform("k", 10_000));
    ScenarioResult s =
        new ScenarioResult(
            "S5",
            "REST: POST /v1/check on a grid node vs the HTTP ceiling",
            "Two load generators post `{\"rule\":\"bench\",\"key\":...,\"cost\":1}` to a grid node"
                + " (`sluice-node.jar`, its own JVM) and to a bare Javalin endpoint in its own JVM"
                + " that does no work and answers with the exact body and RateLimit headers the"
                + " node sent for the same request (the ceiling), "
                + load.keys().description()
                + ": the Java driver (`java.net.http.HttpClient`, HTTP/1.1, 16 threads = 16"
                + " connections, the same generator as every other scenario) and wrk ("
                + WrkRunner.THREADS
                + " threads, "
                + WrkRunner.CONNECTIONS
                + " keep-alive connections, a Lua script that picks the key and counts 200 against"
                + " 429; rounds of whole seconds). Ratios compare each generator's rows only.");
    AtomicReference<String> bodyNote = new AtomicReference<>();
    Measurement.run(
        context,
        s,
        load,
        rule,
        List.of(
            ContenderSpec.driven(
                "Sluice REST (grid node)",
                JAVA,
                (c, r) ->
                    new HttpCheckContender(
                        "Sluice REST (grid node)",
                        c.servers().node().restPort(),
                        r.name(),
                        load.keys(),
                        r.policy())),
            ContenderSpec.driven(
                "HTTP ceiling (bare Javalin)",
                JAVA,
                (c, r) ->
                    new HttpCheckContender(
                        "HTTP ceiling (bare Javalin)",
                        ceiling(c, bodyNote).port(),
                        r.name(),
                        load.keys())),
            new ContenderSpec(
                "Sluice REST (grid node), wrk",
                WRK,
                (c, r) ->
                    WrkRunner.start(
                        "sluice-rest", c.servers().node().restPort(), r.name(), load.keys())),
            new ContenderSpec(
                "HTTP ceiling (bare Javalin), wrk",
                WRK,
                (c, r) ->
                    WrkRunner.start(
                        "ceiling", ceiling(c, bodyNote).port(), r.name(), load.keys()))));
    if (bodyNote.get() != null) {
      s.note(bodyNote.get());
    }
    context.report().scenario(s);
  }

  /** Starts the ceiling ahead of S5 (the quick run boots servers in the background). */
  static void startCeiling(BenchContext context) {
    try {
      ceiling(context, new AtomicReference<>());
    } catch (Exception e) {
      // remembered by Servers, or retried by S5 itself, which then reports it
    }
  }

  /**
   * The ceiling, answering with one real answer of the grid node (body and RateLimit headers); if
   * the node cannot run, with a body of the same fields built from docs/rest-api.md, and the note
   * says so.
   */
  private static Servers.Ceiling ceiling(BenchContext context, AtomicReference<String> note)
      throws Exception {
    byte[] body;
    Map<String, List<String>> headers;
    try {
      int port = context.servers().node().restPort();
      HttpResponse<byte[]> answer =
          HttpClient.newHttpClient()
              .send(
                  HttpCheckContender.request(
                      URI.create("http://127.0.0.1:" + port + "/v1/check"), "bench", "template"),
                  HttpResponse.BodyHandlers.ofByteArray());
      body = answer.body();
      headers = answer.headers().map();
      note.set(
          "Both answer with the same "
              + body.length
              + "-byte JSON body and the same RateLimit headers.");
    } catch (Servers.NotRunException e) {
      long limit = BenchRule.BENCH.limit();
      body =
          ("{\"allowed\":true,\"limit\":"
                  + limit
                  + ",\"remaining\":"
                  + (limit - 1)
                  + ",\"resetAfterMs\":1,\"retryAfterMs\":0,\"rule\":\"bench\",\"shadow\":false}")
              .getBytes(StandardCharsets.UTF_8);
      headers = Map.of();
      note.set(
          "The grid node did not run, so the ceiling answers a "
              + body.length
              + "-byte body with the fields of a check's answer instead of a copy of the node's answer.");
    }
    return context.servers().ceiling(body, headers);
  }
}
