package dev.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.local.LocalRateLimiter;
import dev.sluice.core.test.Seeds;
import io.micrometer.core.instrument.Timer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A fuzzer against the real server ({@link SluiceApi} on a real {@link LocalRateLimiter}, Javalin
 * on 127.0.0.1, port 0, real HTTP), seeded by {@link Seeds} (a failure prints the command that
 * replays it); size it with {@code -Dsluice.fuzz.requests=<n>} (3,000 by default; the {@code
 * reliability} profile sends 100,000: {@code ./mvnw -Preliability verify -pl rest-api -am
 * -Dtest=RestFuzzTest -Dsurefire.failIfNoSpecifiedTests=false}).
 *
 * <h2>What is sent</h2>
 *
 * Valid checks and batches on a small pool of keys (so that limits are reached and denials happen),
 * byte-level mutations of valid bodies, every field with every wrong JSON type, absurd numbers,
 * random JSON trees, bodies over 64 KiB, nesting 10,000 deep, invalid UTF-8, oversize and
 * multi-byte keys, wrong and missing content types, oversize and malformed batches, odd paths and
 * methods, admin routes without or with a wrong token, and over raw sockets: huge and numerous
 * headers, conflicting framing, truncated bodies, garbage request lines.
 *
 * <h2>The oracle</h2>
 *
 * <ul>
 *   <li>No answer is a 5xx.
 *   <li>An HTTP request Javalin routes gets either a decision (200 or 429 whose body says {@code
 *       allowed} accordingly) or a 4xx with {@code {"error", "message"}}.
 *   <li>A decision is correct: a model limiter (a second {@link LocalRateLimiter} on the same
 *       clock) applies the same named checks, parsed from what was sent, and must agree on {@code
 *       allowed} and {@code remaining}.
 *   <li>A rejected request (a 4xx answer) changes no state: the model sees only decided requests,
 *       so after every rejection the targeted key's peek on the server must equal the model's, and
 *       every pool key is compared after every request and at the end.
 *   <li>A request whose answer was lost (no HTTP status came back: Jetty refused it and closed the
 *       connection while the client was still sending, or the connection broke) is not taken for a
 *       rejection: the server may have decided it before the answer was lost. The test asks the
 *       server what it answered, from its own record of every check request ({@code sluice.check},
 *       by route and status, written after the handler): decided (200/429), the model applies it
 *       too; refused (4xx), or never routed, it must have changed nothing. Either way the pool
 *       comparison that follows holds the server to it.
 *   <li>Every request is answered (or cut off so) within {@link #ANSWER_TIMEOUT}, generous for a
 *       loaded two-core machine and still a bound: a timeout is a violation.
 *   <li>The server stays up: {@code /health/live} and a valid check answer at the end.
 * </ul>
 *
 * Requests that are not valid HTTP (raw-socket abuse, undecodable paths) are refused by Jetty's
 * parser before Javalin sees them; those too must answer the JSON error of docs/rest-api.md,
 * "Errors" (never Jetty's HTML page), and the run prints how many there were by status and code.
 * The one 5xx allowed is 505 for an unknown HTTP version, as {@code http_version_not_supported}.
 */
@ExtendWith(Seeds.class)
class RestFuzzTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final List<String> RULES = List.of("fz-fixed", "fz-gcra", "fz-sliding");
  private static final int POOL_KEYS = 12;
  private static final Set<String> POOL =
      IntStream.range(0, POOL_KEYS).mapToObj(k -> "k" + k).collect(Collectors.toSet());
  private static final Set<String> JETTY_CODES =
      Set.of(
          ApiError.MALFORMED_REQUEST,
          ApiError.URI_TOO_LONG,
          ApiError.HEADERS_TOO_LARGE,
          ApiError.HTTP_VERSION_NOT_SUPPORTED);

  /**
   * How long a request may wait for its answer, and a connection for its handshake. A decision
   * takes microseconds here; these bounds are for a loaded two-core CI machine (GC pauses, other
   * builds), three times the 10 s and 5 s of {@link ApiServer#send}. Still bounds: a request not
   * answered within them is a violation.
   */
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(30);

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(15);

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();
  private final Map<String, Integer> byCategory = new TreeMap<>();
  private final Map<Integer, Integer> byStatus = new TreeMap<>();
  private final List<String> violations = new ArrayList<>();
  private int decided;
  private int parserRefusals;
  private int closedWithoutAnswer;

  /** Requests on pool keys whose answer was lost, by what the server's record says it answered. */
  private final Map<String, Integer> lostAnswers = new TreeMap<>();

  private String lastRequest = "";
  private final Map<String, Integer> jettyRefusals = new TreeMap<>();

  @Test
  void fuzz_seededRequests_no5xxRejectionsChangeNothingDecisionsMatchModel() throws Exception {
    int requests =
        Integer.getInteger(
            "sluice.fuzz.requests", Boolean.getBoolean("sluice.reliability") ? 100_000 : 3_000);
    Random random = Seeds.random();
    try (ApiServer server = new ApiServer()) {
      LocalRateLimiter model = LocalRateLimiter.builder().timeSource(server.clock).build();
      List<Rule> rules =
          List.of(
              new Rule("fz-fixed", policy(Algorithm.FIXED_WINDOW, 50)),
              new Rule("fz-gcra", policy(Algorithm.GCRA, 20)),
              new Rule("fz-sliding", policy(Algorithm.SLIDING_WINDOW, 30)));
      for (Rule rule : rules) {
        server.limiter.rules().put(rule);
        model.rules().put(rule);
      }
      long started = System.nanoTime();
      int sent = 0;
      for (int i = 0; i < requests && violations.size() < 20; i++, sent++) {
        if (i % 2_000 == 1_999) {
          // Let refilled budgets make room for more decisions; both limiters read this clock.
          server.clock.advance(Duration.ofHours(2));
        }
        lastRequest = "(not recorded)";
        oneRequest(server, model, random, i);
        // In-process peeks are cheap: after every request every pool key must match the model,
        // which saw only the decided requests.
        comparePool(server, model, "after request " + i + ": " + lastRequest);
      }
      comparePool(server, model, "at the end");
      double seconds = (System.nanoTime() - started) / 1e9;

      ApiServer.Response live = server.get("/health/live");
      ApiServer.Response check =
          server.post("/v1/check", "{\"rule\": \"fz-fixed\", \"key\": \"after-fuzz\"}");
      System.out.printf(
          "fuzz: %d requests in %.1f s (%.0f/s), base seed %d%n  categories %s%n  statuses %s%n"
              + "  decided %d, refused by Jetty before routing %d %s, closed without answer %d"
              + " (on pool keys, answered by the server as %s), violations %d%n",
          sent,
          seconds,
          sent / seconds,
          Seeds.base(),
          byCategory,
          byStatus,
          decided,
          parserRefusals,
          jettyRefusals,
          closedWithoutAnswer,
          lostAnswers,
          violations.size());
      violations.forEach(v -> System.out.println("  VIOLATION " + v));
      assertThat(live.status()).as("server alive after the fuzz").isEqualTo(200);
      assertThat(check.status()).as("a valid check after the fuzz").isEqualTo(200);
      assertThat(violations).as("oracle violations").isEmpty();
      assertThat(byStatus.keySet()).allMatch(status -> status < 500 || status == 505);
    }
  }

  private static Policy policy(Algorithm algorithm, long limit) {
    return Policy.builder().algorithm(algorithm).limit(limit).window(Duration.ofHours(1)).build();
  }

  // ---------------------------------------------------------------------------------------------
  // One request

  private void oneRequest(ApiServer server, LocalRateLimiter model, Random random, int index)
      throws Exception {
    int dice = random.nextInt(100);
    String category;
    String path = "/v1/check";
    byte[] body;
    String contentType = "application/json";
    if (dice < 25) {
      category = "valid-check";
      body = bytes(validCheck(random));
    } else if (dice < 30) {
      category = "valid-inline";
      body = bytes(inlineCheck(random));
    } else if (dice < 48) {
      category = "byte-mutation";
      body =
          mutateBytes(
              random, bytes(random.nextBoolean() ? validCheck(random) : validBatch(random)));
      path = random.nextInt(4) == 0 ? "/v1/check/batch" : "/v1/check";
    } else if (dice < 62) {
      category = "wrong-types";
      body = bytes(wrongTypes(random));
    } else if (dice < 66) {
      category = "random-json";
      body = bytes(randomJson(random, 0));
      path = random.nextBoolean() ? "/v1/check" : "/v1/check/batch";
    } else if (dice < 68) {
      category = "huge-body";
      body = hugeBody(random);
    } else if (dice < 70) {
      category = "deep-body";
      body = deepBody(random);
      path = random.nextBoolean() ? "/v1/check" : "/v1/check/batch";
    } else if (dice < 73) {
      category = "invalid-utf8";
      body = invalidUtf8(random);
    } else if (dice < 76) {
      category = "oversize-key";
      body = bytes(oversizeKey(random));
    } else if (dice < 81) {
      category = "content-type";
      body = bytes(validCheck(random));
      contentType = pick(random, contentTypes());
    } else if (dice < 89) {
      category = "batch";
      path = "/v1/check/batch";
      body = bytes(batch(random));
    } else if (dice < 95) {
      category = "routes-and-admin";
      routeAbuse(server, model, random);
      count(category);
      return;
    } else {
      category = "raw-http";
      rawAbuse(server, random);
      count(category);
      return;
    }
    count(category);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(server.uri(path)).POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    lastRequest = category + " " + path + " " + contentType + " " + preview(body);
    Map<Integer, Long> answeredBefore = answeredByStatus(server, path);
    ApiServer.Response response;
    try {
      response = send(request);
    } catch (IOException e) {
      unanswered(server, model, path, body, answeredBefore, e);
      return;
    }
    judge(server, model, category, path, body, response);
  }

  /** {@link ApiServer#send}, with this test's bounds ({@link #ANSWER_TIMEOUT}). */
  private ApiServer.Response send(HttpRequest.Builder request)
      throws IOException, InterruptedException {
    return new ApiServer.Response(
        http.send(
            request.timeout(ANSWER_TIMEOUT).build(),
            HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)));
  }

  /**
   * A request whose answer never came: no HTTP status, so neither a decision nor a rejection. Jetty
   * answers 413 as soon as it knows a body is too large, or 431 for headers, and closes the
   * connection; a client still sending may see the close instead of the answer (most such requests
   * are oversize bodies). A connection can also break after the server decided: the check counted,
   * and only its answer was lost. So this asks the server what it answered ({@link #serverAnswer}):
   * a decision is applied to the model like one that came back; a refusal, or a request that never
   * reached the routes, must have changed nothing. The pool comparison after every request then
   * holds the server to it. It is never sent again, which could count it twice. A timeout is a
   * violation in itself: no answer within {@link #ANSWER_TIMEOUT}.
   */
  private void unanswered(
      ApiServer server,
      LocalRateLimiter model,
      String path,
      byte[] sent,
      Map<Integer, Long> answeredBefore,
      IOException e) {
    closedWithoutAnswer++;
    if (e instanceof HttpTimeoutException) {
      violations.add("no answer within " + ANSWER_TIMEOUT.toSeconds() + " s: " + lastRequest);
    }
    List<JsonNode> checks = namedChecks(path, sent);
    if (checks.stream().noneMatch(check -> POOL.contains(check.path("key").asText()))) {
      return; // names no pool key: the pool comparison alone says whether it changed anything
    }
    int status = serverAnswer(server, path, answeredBefore);
    String answered = status == 0 ? "not routed" : Integer.toString(status);
    lostAnswers.merge(answered, 1, Integer::sum);
    System.out.printf(
        "answer lost (%s), the server's record says %s: %s%n", e, answered, lastRequest);
    if (status == 200 || status == 429) {
      decided++;
      for (JsonNode check : checks) {
        model.tryAcquire(check.get("rule").asText(), check.get("key").asText(), costOf(check));
      }
    }
  }

  /**
   * The named checks of the fuzz's rules a check request holds, in order (one check, or a batch's):
   * what the model applies when the server decided the request ({@link #checkOne} does the same).
   */
  private static List<JsonNode> namedChecks(String path, byte[] sent) {
    JsonNode parsed = tryParse(sent);
    if (parsed == null || !path.startsWith("/v1/check")) {
      return List.of();
    }
    List<JsonNode> candidates = new ArrayList<>();
    if (path.endsWith("/batch")) {
      parsed.path("checks").forEach(candidates::add);
    } else {
      candidates.add(parsed);
    }
    List<JsonNode> named = new ArrayList<>();
    for (JsonNode check : candidates) {
      if (RULES.contains(check.path("rule").asText())) {
        named.add(check);
      }
    }
    return named;
  }

  /**
   * What the server answered a request whose answer was lost: the status its record of check
   * requests ({@link SluiceMetrics#CHECK_TIMER}, by route and status) gained since {@code before};
   * 0 if it gained none: the request never reached the routes. This test sends one request at a
   * time, so the only request the record can gain is this one.
   *
   * <p>Read once, not watched for a while: the record is written by the route's after-handler,
   * before the answer is written, and an answer is lost only when the connection ended (the server
   * closed it, early for a body too large or after an idle spell, and the client saw the close
   * instead of an answer). A server that closed the connection is done with the request: routed and
   * recorded before the close, or never routed. (A client that gave up waiting is a violation of
   * its own.) An earlier version waited up to 10 s for a late record, a guess on the wall clock.
   */
  private static int serverAnswer(ApiServer server, String path, Map<Integer, Long> before) {
    for (Map.Entry<Integer, Long> now : answeredByStatus(server, path).entrySet()) {
      if (now.getValue() > before.getOrDefault(now.getKey(), 0L)) {
        return now.getKey();
      }
    }
    return 0;
  }

  /** How many requests on {@code route} the server answered, by status, by its own record. */
  private static Map<Integer, Long> answeredByStatus(ApiServer server, String route) {
    Map<Integer, Long> counts = new TreeMap<>();
    for (Timer timer :
        server.registry.find(SluiceMetrics.CHECK_TIMER).tag("route", route).timers()) {
      String status = timer.getId().getTag("status");
      if (status != null) {
        counts.merge(Integer.parseInt(status), timer.count(), Long::sum);
      }
    }
    return counts;
  }

  private void count(String category) {
    byCategory.merge(category, 1, Integer::sum);
  }

  private void judge(
      ApiServer server,
      LocalRateLimiter model,
      String category,
      String path,
      byte[] sent,
      ApiServer.Response response) {
    int status = response.status();
    byStatus.merge(status, 1, Integer::sum);
    String what = category + " " + path + " " + preview(sent);
    if (status >= 500) {
      violations.add(status + " for " + what + " -> " + response.body());
      return;
    }
    JsonNode answer;
    try {
      answer = MAPPER.readTree(response.body());
    } catch (IOException e) {
      violations.add("non-JSON " + status + " for " + what + " -> " + response.body());
      return;
    }
    if (status == 200 || status == 429) {
      decided++;
      checkDecision(model, path, sent, status, answer, what);
      return;
    }
    if (status < 400 || !answer.path("error").isTextual() || !answer.path("message").isTextual()) {
      violations.add("not a 4xx JSON error: " + status + " for " + what + " -> " + response.body());
      return;
    }
    countJettyRefusal(status, answer);
    // Rejected: the key it named (if any) must be untouched.
    JsonNode parsed = tryParse(sent);
    if (parsed != null && parsed.path("rule").isTextual() && parsed.path("key").isTextual()) {
      compareKey(
          server,
          model,
          parsed.get("rule").asText(),
          parsed.get("key").asText(),
          "a rejected request changed",
          what);
    }
  }

  private void checkDecision(
      LocalRateLimiter model, String path, byte[] sent, int status, JsonNode answer, String what) {
    JsonNode parsed = tryParse(sent);
    if (parsed == null) {
      violations.add("decided a body that is not JSON: " + what);
      return;
    }
    if (path.endsWith("/batch")) {
      JsonNode checks = parsed.path("checks");
      JsonNode results = answer.path("results");
      if (!checks.isArray() || !results.isArray() || checks.size() != results.size()) {
        violations.add("batch answer does not match its checks: " + what + " -> " + answer);
        return;
      }
      boolean all = true;
      for (int i = 0; i < checks.size(); i++) {
        all &= results.get(i).path("allowed").asBoolean();
        checkOne(model, checks.get(i), results.get(i), what + " [" + i + "]");
      }
      if (all != (status == 200) || answer.path("allowed").asBoolean() != all) {
        violations.add("batch status/allowed disagree: " + status + " " + what + " -> " + answer);
      }
      return;
    }
    if (answer.path("allowed").asBoolean() != (status == 200)) {
      violations.add("status " + status + " but allowed=" + answer.path("allowed") + ": " + what);
    }
    checkOne(model, parsed, answer, what);
  }

  /**
   * Applies one decided named check to the model and compares; inline checks are checked for shape.
   */
  private void checkOne(LocalRateLimiter model, JsonNode check, JsonNode answer, String what) {
    if (answer.path("remaining").asLong(-1) < 0 || !answer.path("limit").canConvertToLong()) {
      violations.add("decision without limit/remaining: " + what + " -> " + answer);
      return;
    }
    if (!check.path("rule").isTextual()) {
      if (check.path("limit").canConvertToLong() && answer.path("limit").asLong() < 1) {
        violations.add("inline decision with no limit: " + what + " -> " + answer);
      }
      return;
    }
    String rule = check.get("rule").asText();
    String key = check.path("key").asText();
    Decision expected = model.tryAcquire(rule, key, costOf(check));
    if (expected.allowed() != answer.path("allowed").asBoolean()
        || expected.remaining() != answer.path("remaining").asLong()) {
      violations.add(
          "decision differs from the model ("
              + expected.allowed()
              + ", remaining "
              + expected.remaining()
              + "): "
              + what
              + " -> "
              + answer);
    }
  }

  /** A check's cost as the server reads it: 1 when absent. */
  private static long costOf(JsonNode check) {
    JsonNode cost = check.path("cost");
    return cost.isMissingNode() || cost.isNull() ? 1 : cost.asLong();
  }

  private void compareKey(
      ApiServer server,
      LocalRateLimiter model,
      String rule,
      String key,
      String difference,
      String what) {
    if (!RULES.contains(rule)) {
      return;
    }
    try {
      long onServer = server.limiter.peek(rule, key).remaining();
      long inModel = model.peek(rule, key).remaining();
      if (onServer != inModel) {
        violations.add(
            difference
                + " "
                + rule
                + "|"
                + key
                + " (server "
                + onServer
                + ", model "
                + inModel
                + "): "
                + what);
      }
    } catch (RuntimeException e) {
      // An invalid key (empty, oversize) cannot be peeked: it cannot have been counted either.
    }
  }

  private void comparePool(ApiServer server, LocalRateLimiter model, String when) {
    for (String rule : RULES) {
      for (int k = 0; k < POOL_KEYS; k++) {
        compareKey(
            server, model, rule, "k" + k, "server and model differ on", "pool sweep " + when);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Generators

  private static ObjectNode validCheck(Random random) {
    ObjectNode check = NODES.objectNode();
    check.put("rule", pick(random, RULES));
    check.put("key", "k" + random.nextInt(POOL_KEYS));
    if (random.nextBoolean()) {
      check.put("cost", 1 + random.nextInt(3));
    }
    return check;
  }

  private static ObjectNode inlineCheck(Random random) {
    ObjectNode check = NODES.objectNode();
    check.put("key", "inline-" + random.nextInt(POOL_KEYS));
    check.put("limit", 1 + random.nextInt(100));
    check.put("window", pick(random, List.of("1s", "1m", "1h", "PT30S", "250ms")));
    if (random.nextBoolean()) {
      check.put("algorithm", pick(random, List.of("gcra", "token_bucket", "fixed_window")));
    }
    return check;
  }

  private static ObjectNode validBatch(Random random) {
    ObjectNode batch = NODES.objectNode();
    ArrayNode checks = batch.putArray("checks");
    int n = 1 + random.nextInt(5);
    for (int i = 0; i < n; i++) {
      checks.add(random.nextInt(5) == 0 ? inlineCheck(random) : validCheck(random));
    }
    return batch;
  }

  private static ObjectNode batch(Random random) {
    int dice = random.nextInt(10);
    if (dice < 5) {
      return validBatch(random);
    }
    ObjectNode batch = NODES.objectNode();
    switch (dice) {
      case 5 -> batch.putArray("checks");
      case 6 -> {
        ArrayNode checks = batch.putArray("checks");
        for (int i = 0; i < 1_001; i++) {
          checks.add(validCheck(random));
        }
      }
      case 7 -> batch.set("checks", wrongValue(random));
      case 8 -> {
        ArrayNode checks = batch.putArray("checks");
        checks.add(validCheck(random));
        checks.add(wrongTypes(random));
      }
      default -> {
        batch.set("checks", validBatch(random).get("checks"));
        batch.put(pick(random, List.of("extra", "rule", "key", "")), 1);
      }
    }
    return batch;
  }

  /** A check where one field has a wrong type or value, or an unknown field is added. */
  private static ObjectNode wrongTypes(Random random) {
    ObjectNode check = random.nextInt(4) == 0 ? inlineCheck(random) : validCheck(random);
    List<String> fields =
        List.of("rule", "key", "cost", "limit", "window", "algorithm", "burst", "unknown", "");
    String field = pick(random, fields);
    if (random.nextInt(5) == 0) {
      check.remove(field);
    } else {
      check.set(field, wrongValue(random));
    }
    return check;
  }

  private static JsonNode wrongValue(Random random) {
    return switch (random.nextInt(16)) {
      case 0 -> NODES.nullNode();
      case 1 -> NODES.booleanNode(random.nextBoolean());
      case 2 -> NODES.numberNode(random.nextLong());
      case 3 -> NODES.numberNode(-1 - random.nextInt(10));
      case 4 -> NODES.numberNode(0);
      case 5 -> NODES.numberNode(random.nextDouble() * 10);
      case 6 -> NODES.numberNode(new java.math.BigInteger("9".repeat(40)));
      case 7 -> NODES.textNode("");
      case 8 -> NODES.textNode(pick(random, List.of("0s", "-1m", "abc", "1y", "PT0S", "99999d")));
      case 9 -> NODES.textNode("x".repeat(random.nextInt(2_000)));
      case 10 -> NODES.arrayNode().add(1).add("a");
      case 11 -> NODES.objectNode().put("rule", "fz-fixed");
      case 12 -> NODES.textNode("\u0000\u202e\ud83d\ude00");
      case 13 -> NODES.numberNode(Long.MAX_VALUE);
      case 14 -> NODES.textNode(pick(random, List.of("1", "fz-fixed", "gcra", "true")));
      default -> NODES.numberNode(Long.MIN_VALUE);
    };
  }

  private static JsonNode randomJson(Random random, int depth) {
    int kind = depth > 4 ? random.nextInt(4) : random.nextInt(6);
    return switch (kind) {
      case 0 -> NODES.textNode(randomString(random, random.nextInt(20)));
      case 1 -> NODES.numberNode(random.nextInt());
      case 2 -> NODES.booleanNode(random.nextBoolean());
      case 3 -> NODES.nullNode();
      case 4 -> {
        ArrayNode array = NODES.arrayNode();
        for (int i = random.nextInt(4); i > 0; i--) {
          array.add(randomJson(random, depth + 1));
        }
        yield array;
      }
      default -> {
        ObjectNode object = NODES.objectNode();
        for (int i = random.nextInt(4); i > 0; i--) {
          String name =
              random.nextBoolean()
                  ? pick(random, List.of("rule", "key", "cost", "checks", "limit", "window"))
                  : randomString(random, 5);
          object.set(name, randomJson(random, depth + 1));
        }
        yield object;
      }
    };
  }

  private static String randomString(Random random, int length) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < length; i++) {
      text.append(
          (char) (random.nextInt(10) == 0 ? random.nextInt(0xD800) : 32 + random.nextInt(95)));
    }
    return text.toString();
  }

  private static byte[] mutateBytes(Random random, byte[] valid) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(valid);
    byte[] bytes = out.toByteArray();
    int mutations = 1 + random.nextInt(4);
    for (int m = 0; m < mutations && bytes.length > 0; m++) {
      int at = random.nextInt(bytes.length);
      bytes =
          switch (random.nextInt(6)) {
            case 0 -> {
              bytes[at] = (byte) random.nextInt(256);
              yield bytes;
            }
            case 1 -> splice(bytes, at, at + 1, new byte[0]);
            case 2 ->
                splice(
                    bytes,
                    at,
                    at,
                    bytes(
                        pick(
                            random, List.of("{", "}", "[", "\"", ",", ":", "\\", "\\u", "1e999"))));
            case 3 -> splice(bytes, at, at, slice(bytes, random.nextInt(at + 1), at));
            case 4 -> slice(bytes, 0, at);
            default -> {
              bytes[at] = (byte) (bytes[at] ^ (1 << random.nextInt(8)));
              yield bytes;
            }
          };
    }
    return bytes;
  }

  private static byte[] hugeBody(Random random) {
    int size = 64 * 1024 + 1 + random.nextInt(2 * 1024 * 1024);
    String key = "k".repeat(size);
    return bytes("{\"rule\": \"fz-fixed\", \"key\": \"" + key + "\"}");
  }

  private static byte[] deepBody(Random random) {
    int depth = 1_000 + random.nextInt(20_000);
    String open = random.nextBoolean() ? "[" : "{\"a\":";
    String close = open.equals("[") ? "]" : "}";
    return bytes(open.repeat(depth) + "1" + close.repeat(depth));
  }

  private static byte[] invalidUtf8(Random random) {
    byte[][] bad = {
      {(byte) 0xff},
      {(byte) 0xc3},
      {(byte) 0xed, (byte) 0xa0, (byte) 0x80},
      {(byte) 0xf8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80},
      {(byte) 0xc0, (byte) 0xaf}
    };
    byte[] prefix = bytes("{\"rule\": \"fz-fixed\", \"key\": \"k" + random.nextInt(POOL_KEYS));
    byte[] suffix = bytes("\"}");
    return concat(prefix, bad[random.nextInt(bad.length)], suffix);
  }

  private static ObjectNode oversizeKey(Random random) {
    ObjectNode check = validCheck(random);
    String key =
        switch (random.nextInt(4)) {
          case 0 -> "a".repeat(513);
          case 1 -> "€".repeat(171); // 513 bytes of UTF-8
          case 2 -> "\ud83d\ude00".repeat(129); // 516 bytes
          default -> "z".repeat(513 + random.nextInt(20_000));
        };
    check.put("key", key);
    return check;
  }

  private static List<String> contentTypes() {
    return java.util.Arrays.asList(
        "text/plain",
        "application/xml",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json; charset=latin1",
        "application/jsonx",
        "",
        "*/*",
        null);
  }

  private void routeAbuse(ApiServer server, LocalRateLimiter model, Random random)
      throws InterruptedException {
    String rule = pick(random, RULES);
    String key = "k" + random.nextInt(POOL_KEYS);
    HttpRequest.Builder request;
    String what;
    byte[] checkBody = null;
    switch (random.nextInt(10)) {
      case 0 -> {
        what = "GET peek with odd key";
        String odd =
            pick(
                random,
                List.of("%00", "%ff%fe", "..%2f..%2fetc", "a".repeat(600), "%E2%82%AC", "%25"));
        request = HttpRequest.newBuilder(server.uri("/v1/limits/" + rule + "/" + odd)).GET();
      }
      case 1 -> {
        what = "DELETE limit without token";
        request = HttpRequest.newBuilder(server.uri("/v1/limits/" + rule + "/" + key)).DELETE();
      }
      case 2 -> {
        what = "DELETE limit with a wrong token";
        request =
            HttpRequest.newBuilder(server.uri("/v1/limits/" + rule + "/" + key))
                .header(
                    "Authorization",
                    pick(
                        random,
                        List.of(
                            "Bearer wrong",
                            "Bearer ",
                            "Basic eDp5",
                            ApiServer.TOKEN,
                            "Bearer " + ApiServer.TOKEN + "x")))
                .DELETE();
      }
      case 3 -> {
        what = "PUT rule without token";
        request =
            HttpRequest.newBuilder(server.uri("/v1/rules/" + rule))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"limit\": 1, \"window\": \"1s\"}"));
      }
      case 4 -> {
        what = "PUT scratch rule with token and a bad body";
        request =
            HttpRequest.newBuilder(server.uri("/v1/rules/fz-scratch"))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + ApiServer.TOKEN)
                .PUT(HttpRequest.BodyPublishers.ofByteArray(bytes(wrongTypes(random))));
      }
      case 5 -> {
        what = "DELETE rule with a wrong token";
        request =
            HttpRequest.newBuilder(server.uri("/v1/rules/" + rule))
                .header("Authorization", "Bearer nope")
                .DELETE();
      }
      case 6 -> {
        what = "wrong method";
        request =
            HttpRequest.newBuilder(
                    server.uri(
                        pick(random, List.of("/v1/check", "/v1/check/batch", "/health/live"))))
                .method(
                    pick(random, List.of("PUT", "DELETE", "PATCH", "GET", "OPTIONS")),
                    HttpRequest.BodyPublishers.noBody());
      }
      case 7 -> {
        what = "unknown route";
        request = HttpRequest.newBuilder(server.uri("/v1/" + randomPath(random))).GET();
      }
      case 8 -> {
        what = "header abuse (HttpClient)";
        checkBody = bytes(validCheck(random));
        request =
            HttpRequest.newBuilder(server.uri("/v1/check"))
                .header("Content-Type", "application/json")
                .header("X-Filler", "v".repeat(random.nextInt(12_000)))
                .header("Accept", "*/*;q=" + "9".repeat(500))
                .header("Authorization", "Bearer " + "t".repeat(random.nextInt(4_000)))
                .POST(HttpRequest.BodyPublishers.ofByteArray(checkBody));
      }
      default -> {
        what = "GET peek of pool key";
        request = HttpRequest.newBuilder(server.uri("/v1/limits/" + rule + "/" + key)).GET();
      }
    }
    ApiServer.Response response;
    lastRequest = what;
    Map<Integer, Long> answeredBefore = answeredByStatus(server, "/v1/check");
    try {
      response = send(request);
    } catch (IOException e) {
      // Only the header-abuse check may be decided; the others must change nothing.
      unanswered(
          server, model, "/v1/check", checkBody == null ? bytes("") : checkBody, answeredBefore, e);
      return;
    }
    int status = response.status();
    byStatus.merge(status, 1, Integer::sum);
    boolean decision = checkBody != null && (status == 200 || status == 429);
    if (status >= 500) {
      violations.add(status + " for " + what + " -> " + response.body());
    } else if (status >= 400 && !decision) {
      JsonNode answer = tryParse(bytes(response.body()));
      if (answer == null
          || !answer.path("error").isTextual()
          || !answer.path("message").isTextual()) {
        violations.add(
            "not a 4xx JSON error: " + status + " for " + what + " -> " + response.body());
      } else {
        countJettyRefusal(status, answer);
      }
    } else if (what.startsWith("DELETE") || what.startsWith("PUT rule")) {
      violations.add("admin call succeeded without the token: " + what + " -> " + status);
    } else if (checkBody != null) {
      // A valid check with big headers was decided: the model must agree and count it too.
      decided++;
      JsonNode answer = tryParse(bytes(response.body()));
      if (answer == null) {
        violations.add("non-JSON decision for " + what);
      } else {
        checkDecision(model, "/v1/check", checkBody, status, answer, what);
      }
      return;
    }
    compareKey(server, model, rule, key, "a refused request changed", what);
  }

  /**
   * Jetty refuses some requests before any route runs (an undecodable URI, oversize headers, a
   * garbled request line); {@link JettyErrors} answers those with the JSON error of
   * docs/rest-api.md too. Counted by status and code, and reported.
   */
  private void countJettyRefusal(int status, JsonNode answer) {
    if (JETTY_CODES.contains(answer.path("error").asText())) {
      jettyRefusals.merge(status + " " + answer.path("error").asText(), 1, Integer::sum);
      parserRefusals++;
    }
  }

  private static String randomPath(Random random) {
    return pick(
        random,
        List.of(
            "checks",
            "check/batch/x",
            "limits",
            "rules/a/b/c",
            "%2e%2e/",
            "x".repeat(5_000),
            "openapi.json/../x"));
  }

  /** Requests that are not well-formed HTTP, over a raw socket; the answer must not be a 5xx. */
  private void rawAbuse(ApiServer server, Random random) {
    String json = "{\"rule\":\"fz-fixed\",\"key\":\"raw\"}";
    String head =
        "POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
    byte[] request =
        switch (random.nextInt(8)) {
          case 0 ->
              bytes(
                  head
                      + "X-Big: "
                      + "b".repeat(64 * 1024)
                      + "\r\nContent-Length: "
                      + json.length()
                      + "\r\n\r\n"
                      + json);
          case 1 -> {
            StringBuilder many = new StringBuilder(head);
            for (int i = 0; i < 2_000; i++) {
              many.append("X-H").append(i).append(": v\r\n");
            }
            yield bytes(many + "Content-Length: " + json.length() + "\r\n\r\n" + json);
          }
          case 2 -> bytes(head + "Content-Length: 5\r\nContent-Length: 40\r\n\r\n" + json);
          case 3 ->
              bytes(head + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nzz\r\n" + json);
          case 4 -> bytes(head + "Content-Length: " + (json.length() + 100) + "\r\n\r\n" + json);
          case 5 ->
              bytes(
                  pick(
                      random,
                      List.of(
                          "GARBAGE / HTTP/9.9\r\n\r\n",
                          "GARBAGE\r\n\r\n",
                          "GET /v1/limits/fz-fixed/% HTTP/1.1\r\nHost: x\r\n\r\n",
                          "GET /v1/limits/%zz/raw HTTP/1.1\r\nHost: x\r\n\r\n",
                          "GET /v1/limits/fz-fixed/raw\r\nHost: x\r\n\r\n",
                          "GET /v1/limits/fz-fixed/raw HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n",
                          "GET /v1/limits/fz-fixed/" + "k".repeat(70_000) + " HTTP/1.1\r\n\r\n",
                          "DELETE /v1/rules/fz-fixed HTTP/1.1\r\n\r\n")));
          case 6 ->
              concat(
                  bytes("POST /v1/check\u00ff HTTP/1.1\r\nHost: x\r\n"),
                  new byte[] {(byte) 0xc3, '\r', '\n', '\r', '\n'});
          default ->
              bytes(
                  head
                      + "Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFF\r\n"
                      + json
                      + "\r\n0\r\n\r\n");
        };
    lastRequest = "raw " + preview(request);
    try (Socket socket = new Socket("127.0.0.1", server.api.port())) {
      socket.setSoTimeout(5_000);
      OutputStream out = socket.getOutputStream();
      try {
        out.write(request);
        out.flush();
        socket.shutdownOutput();
      } catch (IOException e) {
        // The server may close as soon as it has seen enough to refuse.
      }
      InputStream in = socket.getInputStream();
      byte[] answer = in.readNBytes(64 * 1024);
      if (answer.length == 0) {
        closedWithoutAnswer++;
        return;
      }
      judgeRaw(request, RawHttp.parse(answer));
    } catch (IOException e) {
      closedWithoutAnswer++;
    }
  }

  /**
   * A raw request's answer: a decision, or a JSON error (never Jetty's HTML page), and no 5xx but
   * the 505 that HTTP defines for an unknown version.
   */
  private void judgeRaw(byte[] request, RawHttp.Response response) {
    int status = response.status();
    byStatus.merge(status, 1, Integer::sum);
    String what = "raw " + preview(request) + " -> " + status + " " + response.body();
    if (status < 400) {
      decided++;
      return;
    }
    JsonNode answer = tryParse(bytes(response.body()));
    String contentType = response.header("Content-Type");
    if (answer == null
        || contentType == null
        || !contentType.startsWith("application/json")
        || !answer.path("error").isTextual()
        || !answer.path("message").isTextual()) {
      violations.add("not a JSON error: " + what);
    } else if (status >= 500
        && !(status == 505
            && answer.path("error").asText().equals(ApiError.HTTP_VERSION_NOT_SUPPORTED))) {
      violations.add(what);
    } else {
      countJettyRefusal(status, answer);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  private static @Nullable JsonNode tryParse(byte[] body) {
    try {
      return MAPPER.readTree(body);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static <T> T pick(Random random, List<T> values) {
    return values.get(random.nextInt(values.size()));
  }

  private static byte[] bytes(Object value) {
    return String.valueOf(value).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  private static byte[] slice(byte[] bytes, int from, int to) {
    return java.util.Arrays.copyOfRange(bytes, from, to);
  }

  private static byte[] splice(byte[] bytes, int from, int to, byte[] insert) {
    return concat(slice(bytes, 0, from), insert, slice(bytes, to, bytes.length));
  }

  private static String preview(byte[] bytes) {
    String text = new String(bytes, 0, Math.min(bytes.length, 160), StandardCharsets.UTF_8);
    return text + (bytes.length > 160 ? "…(" + bytes.length + " bytes)" : "");
  }
}
