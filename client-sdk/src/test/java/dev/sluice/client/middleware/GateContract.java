package dev.sluice.client.middleware;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.FailurePolicy;
import dev.sluice.client.GridMembers;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.local.LocalRateLimiter;
import dev.sluice.core.rules.RulesFile;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The one gate contract: every adapter (servlet filter in Jetty, Javalin, Spring MVC, WebFlux on
 * reactor-netty) serves the same routes, each behind its own gate, on a real server on 127.0.0.1
 * port 0, and a real HTTP client checks what a caller sees. An adapter's test says only how it
 * serves {@link #gates()} in front of {@link Application}.
 *
 * <p>The limiters are real: a {@link SluiceClient} over the local runtime with the shipped rules
 * file on a frozen clock (so counts are exact), the same on the real clock for waits and permits in
 * flight, and a {@link SluiceClient} whose grid cannot be reached (the client's own failure path,
 * as in production, answers fail-open and fail-closed).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
public abstract class GateContract {
  /** The rules file the node ships: its {@code payments} rule has two limits. */
  static final Path SHIPPED_RULES = Path.of("..", "grid-node", "rules.yaml");

  private final ManualTimeSource clock = ManualTimeSource.at(Instant.parse("2026-01-01T00:00:10Z"));
  private RateLimiter frozen;
  private RateLimiter realClock;
  private GridMembers unreachable;
  private SluiceClient outageClosed;
  private RateLimiter outage;
  private int port;

  /**
   * Starts a real server on 127.0.0.1, port 0, where a GET of each path of {@code gates} passes its
   * gate and then {@link Application#handle}, told whether the adapter marked the request
   * shadow-banned (through the adapter's own helper); an exception of the handler is the server's
   * 500. Returns the port.
   */
  protected abstract int serve(Map<String, RateLimitGate> gates) throws Exception;

  /** Stops the server. */
  protected abstract void stopServing() throws Exception;

  /** The limiter as the adapter's gates see it: itself, or watched for calls it must not make. */
  protected RateLimiter seenByTheGates(RateLimiter limiter) {
    return limiter;
  }

  @BeforeAll
  void start() throws Exception {
    List<Rule> rules = new ArrayList<>(RulesFile.load(SHIPPED_RULES));
    rules.add(new Rule("login", Policy.of(5, Duration.ofMinutes(1))));
    rules.add(
        new Rule(
            "invites",
            Policy.builder()
                .limit(1)
                .window(Duration.ofHours(1))
                .onDenied(Policy.OnDenied.SHADOW_BAN)
                .build()));
    for (String name : List.of("keyed", "proxied", "fallback")) {
      rules.add(new Rule(name, Policy.of(5, Duration.ofMinutes(1))));
    }
    rules.add(new Rule("one", Policy.of(1, Duration.ofMinutes(1))));
    frozen =
        seenByTheGates(
            SluiceClient.wrap(LocalRateLimiter.builder().timeSource(clock).rules(rules).build()));
    realClock = seenByTheGates(MiddlewareAssertions.pacedAndSlots());

    // No member ever listens here: every call takes the client's failure path.
    unreachable = new GridMembers();
    SluiceClient outageClient =
        SluiceClient.builder()
            .clusterName(unreachable.clusterName)
            .addresses("127.0.0.1:" + unreachable.basePort)
            .connectTimeout(Duration.ofMillis(300))
            .callTimeout(Duration.ofMillis(100))
            .failurePolicy("closed", FailurePolicy.FAIL_CLOSED)
            .build();
    outageClosed = outageClient;
    outage = seenByTheGates(outageClient);

    port = serve(gates());
  }

  @AfterAll
  void stop() throws Exception {
    stopServing();
    if (outageClosed != null) {
      outageClosed.close();
    }
    if (unreachable != null) {
      unreachable.close();
    }
  }

  /** Every route of the contract and its gate. */
  private Map<String, RateLimitGate> gates() {
    Map<String, RateLimitGate> gates = new LinkedHashMap<>();
    gates.put("/login", RateLimitGate.builder(frozen).rule("login").build());
    gates.put("/payments", RateLimitGate.builder(frozen).rule("payments").build());
    gates.put("/export", RateLimitGate.builder(frozen).rule("export").build());
    gates.put("/invite", RateLimitGate.builder(frozen).rule("invites").build());
    gates.put(
        "/keyed",
        RateLimitGate.builder(frozen)
            .rule("keyed")
            .key(KeyExtractor.header("X-Api-Key").orElse(KeyExtractor.clientIp()))
            .build());
    gates.put(
        "/proxied",
        RateLimitGate.builder(frozen)
            .rule("proxied")
            .key(KeyExtractor.clientIp(TrustedProxies.of("127.0.0.0/8", "::1", "10.0.0.0/8")))
            .build());
    gates.put(
        "/teapot",
        RateLimitGate.builder(frozen)
            .rule("one")
            .key(request -> "teapot")
            .rejectStatus(413)
            .build());
    gates.put(
        "/inline",
        RateLimitGate.builder(frozen)
            .policy(
                Policy.builder()
                    .limit(1)
                    .window(Duration.ofHours(1))
                    .onDenied(Policy.OnDenied.SHADOW_BAN)
                    .build())
            .build());
    gates.put("/paced", MiddlewareAssertions.paced(realClock));
    RateLimitGate slots = MiddlewareAssertions.slots(realClock);
    for (String path : List.of("/slots/boom", "/slots/slow", "/slots/quick")) {
      gates.put(path, slots);
    }
    gates.put("/outage/closed", RateLimitGate.builder(outage).rule("closed").build());
    gates.put("/outage/open", RateLimitGate.builder(outage).rule("open").build());
    return gates;
  }

  /**
   * The application behind the gates: {@code /invite} sends an invitation, unless the request is
   * shadow-banned (Figma's spam case: the caller sees the same success, nothing is sent); {@code
   * /slots/*} as {@link MiddlewareAssertions.Slow}; everything else answers {@code welcome}.
   */
  public static final class Application {
    static final AtomicInteger sent = new AtomicInteger();
    static final AtomicInteger skipped = new AtomicInteger();

    private Application() {}

    public static String handle(String path, boolean shadowBanned) throws InterruptedException {
      switch (path) {
        case "/invite", "/inline" -> {
          (shadowBanned ? skipped : sent).incrementAndGet();
          return "invitation sent";
        }
        case "/slots/boom" -> throw new IllegalStateException("the handler failed");
        case "/slots/slow" -> {
          return MiddlewareAssertions.Slow.handle();
        }
        default -> {
          return "welcome";
        }
      }
    }
  }

  private HttpResponse<String> get(String path, String... headers) throws Exception {
    return Http.get(port, path, headers);
  }

  @Test
  void oneLimit_sixthRequestOfFivePerMinute_isRejectedWithHeadersAndJson() throws Exception {
    MiddlewareAssertions.sixthRequestOfFivePerMinuteIsRejected(() -> get("/login"));
  }

  /**
   * The shipped {@code payments} rule (2 per second and 100 per day): every gated request used to
   * answer 500 after it was counted, when the headers asked the policy for its one window.
   */
  @Test
  void shippedRuleOfTwoLimits_headersListBoth_andNameTheOneThatDenied() throws Exception {
    for (int i = 1; i <= 2; i++) {
      HttpResponse<String> admitted = get("/payments");
      assertThat(admitted.statusCode()).as("payment %d", i).isEqualTo(200);
      assertThat(admitted.body()).isEqualTo("welcome");
      assertThat(admitted.headers().firstValue("RateLimit-Policy"))
          .hasValue("\"payments-1s\";q=2;w=1, \"payments-1d\";q=100;w=86400");
      assertThat(admitted.headers().firstValue("X-RateLimit-Remaining"))
          .hasValue(Integer.toString(2 - i));
    }
    HttpResponse<String> denied = get("/payments");
    assertThat(denied.statusCode()).isEqualTo(429);
    // The second's limit denied; t is when that limit is whole again (the two of second 10 have
    // left the sliding window at 12 s), not when the day's is (t=86390, as it used to say).
    assertThat(denied.headers().firstValue("RateLimit")).hasValue("\"payments-1s\";r=0;t=2");
    assertThat(denied.headers().firstValue("X-RateLimit-Reset")).hasValue("2");
    assertThat(denied.headers().firstValue("X-RateLimit-Limit")).hasValue("2");
    // sliding_window: the two of second 10 weigh 2 × (1 - 0.5) = 1 only from 11.5 s on: 1.5 s up.
    assertThat(denied.headers().firstValue("Retry-After")).hasValue("2");
    assertThat(denied.body()).contains("\"error\":\"rate_limited\"", "\"rule\":\"payments\"");
  }

  @Test
  void shadowRule_wouldBeDenial_passesWithTheCountsItHas() throws Exception {
    get("/export");
    get("/export");
    HttpResponse<String> wouldDeny = get("/export");
    assertThat(wouldDeny.statusCode()).isEqualTo(200);
    assertThat(wouldDeny.body()).isEqualTo("welcome");
    assertThat(wouldDeny.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
    assertThat(wouldDeny.headers().firstValue("Retry-After")).isEmpty();
  }

  /**
   * Figma's shadow ban: the second invitation in the hour is denied, yet the caller gets the same
   * answer as for the first (status, body, headers), while the handler saw the mark and sent
   * nothing. The same for an inline policy that shadow-bans.
   */
  @Test
  void shadowBan_handlerSeesTheMark_callerSeesTheSameSuccess() throws Exception {
    for (String path : List.of("/invite", "/inline")) {
      int sentBefore = Application.sent.get();
      int skippedBefore = Application.skipped.get();
      HttpResponse<String> admitted = get(path);
      HttpResponse<String> banned = get(path);

      assertThat(banned.statusCode()).as(path).isEqualTo(200).isEqualTo(admitted.statusCode());
      assertThat(banned.body()).isEqualTo("invitation sent").isEqualTo(admitted.body());
      assertThat(comparable(banned)).isEqualTo(comparable(admitted));
      assertThat(comparable(banned).keySet())
          .as("no rate-limit header, admitted or banned")
          .noneMatch(name -> name.contains("ratelimit") || name.equals("retry-after"));
      assertThat(Application.sent.get() - sentBefore).as("invitations sent").isEqualTo(1);
      assertThat(Application.skipped.get() - skippedBefore).as("skipped, banned").isEqualTo(1);
    }
    assertThat(frozen.peek("invites", "127.0.0.1").remaining())
        .as("the limit holds: the ban counted nothing and admitted nothing")
        .isZero();
  }

  /** The headers of an answer, lower-cased, without the ones that differ per answer anyway. */
  private static Map<String, List<String>> comparable(HttpResponse<String> response) {
    Map<String, List<String>> headers = new TreeMap<>();
    response
        .headers()
        .map()
        .forEach(
            (name, values) -> {
              String lower = name.toLowerCase(java.util.Locale.ROOT);
              if (!lower.equals("date")) {
                headers.put(lower, values);
              }
            });
    return headers;
  }

  @Test
  void waitingGate_requestsWaitTheirTurnInsteadOf429() throws Exception {
    MiddlewareAssertions.pacedRequestsWaitInsteadOf429(() -> get("/paced"));
  }

  @Test
  void concurrencyRule_permitHeldWhileHandled_releasedEvenWhenTheHandlerThrows() throws Exception {
    MiddlewareAssertions.permitHeldWhileHandled_releasedEvenWhenTheHandlerThrows(
        path -> () -> get(path), realClock);
  }

  /**
   * The grid cannot be reached: a rule that fails closed answers 503 with {@code Retry-After} and
   * no count (none is known); one that fails open lets the request through, with no count either.
   */
  @Test
  void failurePolicy_gridUnreachable_closedIs503WithRetryAfter_openPassesWithoutCounts()
      throws Exception {
    HttpResponse<String> closed = get("/outage/closed");
    assertThat(closed.statusCode()).isEqualTo(503);
    assertThat(Long.parseLong(closed.headers().firstValue("Retry-After").orElseThrow()))
        .isPositive();
    assertThat(closed.headers().firstValue("RateLimit")).isEmpty();
    assertThat(closed.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
    assertThat(closed.body())
        .startsWith("{\"error\":\"unavailable\"")
        .contains("\"decidedBy\":\"FAIL_CLOSED\"");

    HttpResponse<String> open = get("/outage/open");
    assertThat(open.statusCode()).isEqualTo(200);
    assertThat(open.body()).isEqualTo("welcome");
    assertThat(open.headers().firstValue("RateLimit")).isEmpty();
    assertThat(open.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
  }

  /**
   * A key no runtime can hold (a header value over 512 bytes of UTF-8) is a 400 with a JSON error,
   * and nothing is counted: not under that key, and not under the client IP it falls back to.
   */
  @Test
  void badKey_headerOver512Bytes_is400_andNothingIsCounted() throws Exception {
    HttpResponse<String> bad = get("/keyed", "X-Api-Key", "k".repeat(513));
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("application/json");
    assertThat(bad.body()).startsWith("{\"error\":\"invalid_key\",\"message\":\"key: ");
    assertThat(bad.body()).contains("512");
    assertThat(frozen.peek("keyed", "127.0.0.1").remaining()).isEqualTo(5);
    assertThat(frozen.peek("keyed", "k".repeat(512)).remaining()).isEqualTo(5);
    // A key that fits is limited as usual, and a missing header falls back to the client IP.
    assertThat(get("/keyed", "X-Api-Key", "key-1").statusCode()).isEqualTo(200);
    assertThat(frozen.peek("keyed", "key-1").remaining()).isEqualTo(4);
    assertThat(get("/keyed").statusCode()).isEqualTo(200);
    assertThat(frozen.peek("keyed", "127.0.0.1").remaining()).isEqualTo(4);
  }

  @Test
  void customRejectStatus_deniedAnswers413WithHeadersAndJson() throws Exception {
    assertThat(get("/teapot").statusCode()).isEqualTo(200);
    HttpResponse<String> denied = get("/teapot");
    assertThat(denied.statusCode()).isEqualTo(413);
    assertThat(denied.headers().firstValue("RateLimit-Policy")).hasValue("\"one\";q=1;w=60");
    assertThat(denied.headers().firstValue("Retry-After")).isPresent();
    assertThat(denied.body()).startsWith("{\"error\":\"rate_limited\"");
  }

  /**
   * Behind trusted proxies the key is the client the proxies saw: a forged left part of {@code
   * X-Forwarded-For} mints no new key, and a hop that is not an address is never resolved.
   */
  @Test
  void clientIp_trustedProxies_limitTheForwardedClient() throws Exception {
    for (int i = 0; i < 5; i++) {
      assertThat(
              get("/proxied", "X-Forwarded-For", "1.1.1." + i + ", 203.0.113.7, 10.0.0.2")
                  .statusCode())
          .isEqualTo(200);
    }
    assertThat(get("/proxied", "X-Forwarded-For", "9.9.9.9, 203.0.113.7, 10.0.0.2").statusCode())
        .as("the same client, another forged left part")
        .isEqualTo(429);
    assertThat(get("/proxied", "X-Forwarded-For", "198.51.100.1, 10.0.0.2").statusCode())
        .isEqualTo(200);
    assertThat(frozen.peek("proxied", "203.0.113.7").remaining()).isZero();
    get("/proxied", "X-Forwarded-For", "evil.example.com");
    assertThat(frozen.peek("proxied", "127.0.0.1").remaining())
        .as("not an address: the last trusted hop is the key")
        .isEqualTo(4);
  }
}
