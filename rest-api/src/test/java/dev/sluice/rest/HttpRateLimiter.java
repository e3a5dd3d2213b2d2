package dev.sluice.rest;

import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Durations;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.UnknownRuleException;
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
import java.util.List;
import java.util.Locale;
import java.util.Optional;
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
final class HttpRateLimiter implements RateLimiter {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  // Sends every non-ASCII character as a JSON unicode escape, as a client may: a key with an
  // unpaired
  // surrogate then reaches the server as written instead of as the '?' that UTF-8 encoding makes.
  private static final ObjectWriter ESCAPING_WRITER =
      MAPPER.writer().with(JsonWriteFeature.ESCAPE_NON_ASCII);
  private static final Pattern QUOTED_RULE = Pattern.compile("unknown rule '([^']*)'");
  private static final Pattern FIELD = Pattern.compile("^(?:checks\\[\\d+]\\.)?([A-Za-z]+): ");

  private final URI base;
  private final @Nullable String adminToken;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  HttpRateLimiter(URI base, @Nullable String adminToken) {
    this.base = base;
    this.adminToken = adminToken;
  }

  @Override
  public Decision tryAcquire(String rule, String key, long permits) {
    ObjectNode body = MAPPER.createObjectNode().put("rule", rule).put("key", key);
    body.put("cost", permits);
    return decision(post("/v1/check", body));
  }

  @Override
  public Decision tryAcquire(Policy policy, String key, long permits) {
    return decision(post("/v1/check", inline(policy, key, permits)));
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(String rule, String key, long permits) {
    return CompletableFuture.supplyAsync(() -> tryAcquire(rule, key, permits));
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(Policy policy, String key, long permits) {
    return CompletableFuture.supplyAsync(() -> tryAcquire(policy, key, permits));
  }

  @Override
  public List<Decision> tryAcquireAll(List<Check> checks) {
    // A Java null cannot be put on the wire as a check: refuse it as the Java runtimes do (the
    // server's answer to a JSON null in a batch is BadInputTest's).
    ArrayNode array = MAPPER.createArrayNode();
    for (Check check : Check.requireAll(checks)) {
      if (check.rule() != null) {
        array
            .addObject()
            .put("rule", check.rule())
            .put("key", check.key())
            .put("cost", check.permits());
      } else {
        array.add(inline(check.policy(), check.key(), check.permits()));
      }
    }
    ObjectNode body = MAPPER.createObjectNode();
    body.set("checks", array);
    JsonNode answer = post("/v1/check/batch", body);
    List<Decision> decisions = new ArrayList<>();
    answer.get("results").forEach(result -> decisions.add(decision(result)));
    return decisions;
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
    return CompletableFuture.supplyAsync(() -> tryAcquireAll(checks));
  }

  @Override
  public Decision peek(String rule, String key) {
    return decision(send(HttpRequest.newBuilder(uri(limitPath(rule, key))).GET()).json());
  }

  @Override
  public void reset(String rule, String key) {
    send(admin(HttpRequest.newBuilder(uri(limitPath(rule, key))).DELETE()));
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
      Policy policy = rule.policy();
      ObjectNode body =
          MAPPER
              .createObjectNode()
              .put("algorithm", policy.algorithm().wireName())
              .put("limit", policy.limit())
              .put("window", Durations.format(policy.window()))
              .put("shadow", policy.shadow())
              .put("countDenied", policy.countDenied());
      putShape(body, policy);
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
      RuleBody body = MAPPER.treeToValue(json, RuleBody.class);
      return body.toRule(body.name());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ObjectNode inline(Policy policy, String key, long permits) {
    ObjectNode body =
        MAPPER
            .createObjectNode()
            .put("key", key)
            .put("cost", permits)
            .put("limit", policy.limit())
            .put("window", Durations.format(policy.window()))
            .put("algorithm", policy.algorithm().wireName())
            .put("shadow", policy.shadow())
            .put("countDenied", policy.countDenied());
    putShape(body, policy);
    return body;
  }

  /** {@code burst} and {@code buckets}, each only where the policy's algorithm takes it. */
  private static void putShape(ObjectNode body, Policy policy) {
    if (policy.algorithm().hasBurst()) {
      body.put("burst", policy.burst());
    }
    if (policy.algorithm().hasBuckets()) {
      body.put("buckets", policy.buckets());
    }
  }

  private static Decision decision(JsonNode json) {
    long millis = 1_000_000L;
    return new Decision(
        json.get("allowed").asBoolean(),
        json.get("limit").asLong(),
        json.get("remaining").asLong(),
        json.get("retryAfterMs").asLong() * millis,
        json.get("resetAfterMs").asLong() * millis,
        json.path("delayMs").asLong(0) * millis,
        json.get("shadow").asBoolean(),
        json.has("decidedBy")
            ? Decision.DecidedBy.valueOf(json.get("decidedBy").asText().toUpperCase(Locale.ROOT))
            : Decision.DecidedBy.LIMITER);
  }

  private JsonNode post(String path, JsonNode body) {
    return send(HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json(body))))
        .json();
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
        throw new UnknownRuleException(rule.find() ? rule.group(1) : message);
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
