package dev.sluice.rest;

import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.BatchMode;
import dev.sluice.core.BatchOutcome;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReleaseException;
import dev.sluice.core.ReleaseProof;
import dev.sluice.core.Reservation;
import dev.sluice.core.ReservationException;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.spec.PolicySpec;
import dev.sluice.core.spec.RuleSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RateLimiter} that speaks HTTP to a Sluice REST API, so that the contract suite every
 * runtime passes also runs against the API: each call is one real request, and errors come back as
 * the exceptions a Java caller would see ({@code 404 unknown_rule} as {@link UnknownRuleException},
 * {@code 400 invalid_field} as {@link InvalidPolicyException} naming the field).
 *
 * <p>Decisions travel in whole milliseconds, so the nanosecond fields of the decisions it returns
 * are whole milliseconds, as the contract expects of every surface.
 */
public final class HttpRateLimiter implements RateLimiter {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  // Sends every non-ASCII character as a JSON unicode escape, as a client may: a key with an
  // unpaired
  // surrogate then reaches the server as written instead of as the '?' that UTF-8 encoding makes.
  private static final ObjectWriter ESCAPING_WRITER =
      MAPPER.writer().with(JsonWriteFeature.ESCAPE_NON_ASCII);
  private static final Pattern QUOTED_RULE = Pattern.compile("unknown rule '([^']*)'");
  private static final Pattern FIELD =
      Pattern.compile("^((?:checks\\[\\d+]\\.)?(?:limits\\[\\d+]\\.)?[A-Za-z]+): ");
  private static final Pattern RULE_FIELD = Pattern.compile("^(checks\\[\\d+]\\.rule): ");

  private final URI base;
  private final @Nullable String adminToken;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  public HttpRateLimiter(URI base, @Nullable String adminToken) {
    this.base = base;
    this.adminToken = adminToken;
  }

  @Override
  public Decision tryAcquire(Check check) {
    return decision(post("/v1/check", checkBody(check)));
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(Check check) {
    return CompletableFuture.supplyAsync(() -> tryAcquire(check));
  }

  @Override
  public List<Decision> tryAcquireAll(List<Check> checks) {
    return tryAcquireAll(checks, BatchMode.EACH).decisions();
  }

  @Override
  public BatchOutcome tryAcquireAll(List<Check> checks, BatchMode mode) {
    // A Java null cannot be put on the wire as a check: refuse it as the Java runtimes do (the
    // server's answer to a JSON null in a batch is BadInputTest's).
    ArrayNode array = MAPPER.createArrayNode();
    for (Check check : Check.requireAll(checks)) {
      array.add(checkBody(check));
    }
    ObjectNode body = MAPPER.createObjectNode();
    body.set("checks", array);
    if (mode != BatchMode.EACH) {
      body.put("mode", mode.wireName());
    }
    JsonNode answer = post("/v1/check/batch", body);
    List<Decision> decisions = new ArrayList<>();
    Set<Integer> released = new HashSet<>();
    JsonNode results = answer.get("results");
    for (int i = 0; i < results.size(); i++) {
      decisions.add(decision(results.get(i)));
      if (results.get(i).path("released").asBoolean(false)) {
        released.add(i);
      }
    }
    return new BatchOutcome(
        decisions,
        answer.get("allowed").asBoolean(),
        answer.has("deniedBy") ? answer.get("deniedBy").asInt() : -1,
        released);
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
    return CompletableFuture.supplyAsync(() -> tryAcquireAll(checks));
  }

  @Override
  public Decision release(Check check) {
    if (check.proof() instanceof Receipt receipt) {
      return decision(
          post("/v1/release", MAPPER.createObjectNode().put("receipt", receipt.encode())));
    }
    HttpRequest.Builder request = jsonPost("/v1/release", checkBody(check));
    // A bare count on the caller's own word is what the admin token allows over REST.
    return decision(
        send(check.proof() == ReleaseProof.Bare.WITHOUT_PROOF ? admin(request) : request).json());
  }

  @Override
  public Decision releasePermit(PolicyRef ref, String key, long permitId) {
    return decision(
        post("/v1/release", keyBody(ref, key).put("permitId", Long.toString(permitId))));
  }

  @Override
  public Reservation reserve(Check check, Duration ttl) {
    JsonNode answer = post("/v1/reserve", checkBody(check).put("ttlMs", ttl.toMillis()));
    return new Reservation(
        answer.has("reservationId") ? answer.get("reservationId").asText() : null,
        decision(answer));
  }

  @Override
  public Decision commit(String reservationId, long cost) {
    ObjectNode body = MAPPER.createObjectNode().put("reservationId", reservationId);
    return decision(post("/v1/commit", body.put("cost", cost)));
  }

  @Override
  public Decision peek(PolicyRef ref, String key) {
    if (ref instanceof PolicyRef.Named named) {
      return decision(send(HttpRequest.newBuilder(uri(limitPath(named.rule(), key))).GET()).json());
    }
    return decision(post("/v1/limits/peek", keyBody(ref, key)));
  }

  @Override
  public void reset(PolicyRef ref, String key) {
    if (ref instanceof PolicyRef.Named named) {
      send(admin(HttpRequest.newBuilder(uri(limitPath(named.rule(), key))).DELETE()));
      return;
    }
    send(
        admin(
            HttpRequest.newBuilder(uri("/v1/limits/reset"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json(keyBody(ref, key))))));
  }

  @Override
  public RuleStore rules() {
    return new HttpRuleStore();
  }

  private final class HttpRuleStore implements RuleStore {
    @Override
    public Optional<Rule> find(String name) {
      Answer answer = exchange(HttpRequest.newBuilder(uri("/v1/rules/" + encode(name))).GET());
      if (answer.status() == 404) {
        return Optional.empty();
      }
      return Optional.of(toRule(answer.orThrow().json()));
    }

    @Override
    public Collection<Rule> all() {
      List<Rule> rules = new ArrayList<>();
      send(HttpRequest.newBuilder(uri("/v1/rules")).GET())
          .json()
          .get("rules")
          .forEach(rule -> rules.add(toRule(rule)));
      return rules;
    }

    @Override
    public void put(Rule rule) {
      ObjectNode body = policyBody(rule.policy());
      send(
          admin(
              HttpRequest.newBuilder(uri("/v1/rules/" + encode(rule.name())))
                  .header("Content-Type", "application/json")
                  .PUT(HttpRequest.BodyPublishers.ofString(body.toString()))));
    }

    @Override
    public boolean remove(String name) {
      Answer answer =
          exchange(admin(HttpRequest.newBuilder(uri("/v1/rules/" + encode(name))).DELETE()));
      return answer.status() != 404 && answer.orThrow().status() == 204;
    }
  }

  private static Rule toRule(JsonNode json) {
    try {
      RuleSpec body = MAPPER.treeToValue(json, RuleSpec.class);
      return body.toRule(body.name());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A check as the API reads it: the rule or the inline policy's fields, the key, the cost. */
  private static ObjectNode checkBody(Check check) {
    ObjectNode body = keyBody(check.ref(), check.key()).put("cost", check.permits());
    if (check.waits()) {
      body.put("maxWaitMs", check.maxWait().toMillis());
    }
    return body;
  }

  /** A key as the API reads it: the rule or the inline policy's fields, and the key. */
  private static ObjectNode keyBody(PolicyRef ref, String key) {
    if (ref.storesPolicyWithState()) {
      throw new UnsupportedOperationException(
          "the REST API has no field for an inline policy's state name");
    }
    ObjectNode body =
        ref instanceof PolicyRef.Inline inline
            ? policyBody(inline.policy())
            : MAPPER.createObjectNode().put("rule", ((PolicyRef.Named) ref).rule());
    return body.put("key", key);
  }

  /** A policy in the fields of the rules file and the API ({@link PolicySpec}). */
  private static ObjectNode policyBody(Policy policy) {
    ObjectNode body = MAPPER.valueToTree(PolicySpec.of(policy));
    removeNulls(body);
    return body;
  }

  private static void removeNulls(JsonNode node) {
    if (node instanceof ObjectNode object) {
      List<String> nulls = new ArrayList<>();
      for (var field : object.properties()) {
        if (field.getValue().isNull()) {
          nulls.add(field.getKey());
        } else {
          removeNulls(field.getValue());
        }
      }
      object.remove(nulls);
    } else if (node instanceof ArrayNode array) {
      array.forEach(HttpRateLimiter::removeNulls);
    }
  }

  private static Decision decision(JsonNode json) {
    long millis = 1_000_000L;
    Decision decision =
        new Decision(
                json.get("allowed").asBoolean(),
                json.get("limit").asLong(),
                json.get("remaining").asLong(),
                json.get("retryAfterMs").asLong() * millis,
                json.get("resetAfterMs").asLong() * millis,
                json.path("delayMs").asLong(0) * millis,
                json.get("shadow").asBoolean(),
                json.has("decidedBy")
                    ? Decision.DecidedBy.valueOf(
                        json.get("decidedBy").asText().toUpperCase(Locale.ROOT))
                    : Decision.DecidedBy.LIMITER)
            .withPermitId(json.has("permitId") ? Long.parseLong(json.get("permitId").asText()) : 0)
            .withReceipt(json.has("receipt") ? Receipt.parse(json.get("receipt").asText()) : null);
    return json.path("shadowBanned").asBoolean(false) ? decision.asShadowBan() : decision;
  }

  private JsonNode post(String path, JsonNode body) {
    return send(jsonPost(path, body)).json();
  }

  private HttpRequest.Builder jsonPost(String path, JsonNode body) {
    return HttpRequest.newBuilder(uri(path))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json(body)));
  }

  private static String json(JsonNode body) {
    try {
      return ESCAPING_WRITER.writeValueAsString(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String limitPath(String rule, String key) {
    return "/v1/limits/" + encode(rule) + "/" + encode(key);
  }

  private static String encode(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private URI uri(String path) {
    return base.resolve(path);
  }

  private HttpRequest.Builder admin(HttpRequest.Builder request) {
    return adminToken == null ? request : request.header("Authorization", "Bearer " + adminToken);
  }

  private Answer send(HttpRequest.Builder request) {
    return exchange(request).orThrow();
  }

  private Answer exchange(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          http.send(
              request.timeout(Duration.ofSeconds(10)).build(),
              HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      return new Answer(response.statusCode(), response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** One HTTP answer; {@link #orThrow} turns API errors into the exceptions of the interface. */
  private record Answer(int status, String body) {
    JsonNode json() {
      try {
        return MAPPER.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    Answer orThrow() {
      if (status == 200 || status == 201 || status == 204 || status == 429) {
        return this;
      }
      JsonNode error = json();
      String code = error.path("error").asText();
      String message = error.path("message").asText();
      if (code.equals(ApiError.UNKNOWN_RULE)) {
        Matcher rule = QUOTED_RULE.matcher(message);
        Matcher field = RULE_FIELD.matcher(message);
        throw new UnknownRuleException(
            rule.find() ? rule.group(1) : message, field.find() ? field.group(1) : "rule");
      }
      switch (code) {
        case ApiError.RESERVATION_UNKNOWN ->
            throw new ReservationException(ReservationException.Reason.UNKNOWN, message);
        case ApiError.RESERVATION_COMMITTED ->
            throw new ReservationException(ReservationException.Reason.COMMITTED, message);
        case ApiError.RESERVATION_EXPIRED ->
            throw new ReservationException(ReservationException.Reason.EXPIRED, message);
        case ApiError.PROOF_REQUIRED ->
            throw new ReleaseException(ReleaseException.Reason.PROOF_REQUIRED, message);
        case ApiError.RECEIPT_NOT_ISSUED_HERE ->
            throw new ReleaseException(ReleaseException.Reason.NOT_ISSUED_HERE, message);
        case ApiError.RECEIPT_SPENT ->
            throw new ReleaseException(ReleaseException.Reason.SPENT, message);
        case ApiError.RECEIPT_EXPIRED ->
            throw new ReleaseException(ReleaseException.Reason.EXPIRED, message);
        default -> {}
      }
      if (code.equals(ApiError.INVALID_FIELD)) {
        Matcher field = FIELD.matcher(message);
        if (field.find()) {
          throw new InvalidPolicyException(field.group(1), message.substring(field.end()));
        }
      }
      throw new IllegalStateException(status + " " + code + ": " + message);
    }
  }
}
