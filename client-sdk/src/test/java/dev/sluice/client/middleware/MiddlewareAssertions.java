package dev.sluice.client.middleware;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.local.LocalRateLimiter;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The scenarios every middleware must pass: a 5-per-minute rule and six requests; waiting instead
 * of 429; a concurrency permit held while the handler runs and given back even when it throws.
 */
final class MiddlewareAssertions {
  private MiddlewareAssertions() {}

  /** The rule {@code paced}: 1 token per 200 ms, on the real clock. */
  static final Policy PACED =
      Policy.builder()
          .algorithm(Algorithm.TOKEN_BUCKET)
          .limit(1)
          .window(Duration.ofMillis(200))
          .build();

  /** The rule {@code slots}: 1 request in flight, a permit lives at most a minute. */
  static final Policy SLOTS =
      Policy.builder()
          .algorithm(Algorithm.CONCURRENCY)
          .limit(1)
          .window(Duration.ofMinutes(1))
          .build();

  /** A limiter on the real clock with {@code paced} and {@code slots}. */
  static RateLimiter pacedAndSlots() {
    return LocalRateLimiter.builder()
        .rules(List.of(new Rule("paced", PACED), new Rule("slots", SLOTS)))
        .build();
  }

  /** A gate on {@code paced} that waits up to 2 s instead of answering 429. */
  static RateLimitGate paced(RateLimiter limiter) {
    // docs/client.md: waiting-gate
    RateLimitGate paced =
        RateLimitGate.builder(limiter).rule("paced").waitUpTo(Duration.ofSeconds(2)).build();
    // end
    return paced;
  }

  static RateLimitGate slots(RateLimiter limiter) {
    return RateLimitGate.builder(limiter).rule("slots").build();
  }

  /**
   * A handler for {@code /slots/slow}: signals {@link #entered} and holds its request until {@link
   * #proceed} (at most 10 s); {@code /slots/boom} throws; {@code /slots/quick} answers at once.
   */
  static final class Slow {
    static volatile CountDownLatch entered = new CountDownLatch(1);
    static volatile CountDownLatch proceed = new CountDownLatch(1);

    static void reset() {
      entered = new CountDownLatch(1);
      proceed = new CountDownLatch(1);
    }

    static String handle() throws InterruptedException {
      entered.countDown();
      if (!proceed.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never let the slow request go on");
      }
      return "slow";
    }
  }

  /**
   * Three requests to {@code /paced} (1 per 200 ms) all pass: the 2nd and 3rd are booked and wait
   * their turn instead of a 429, so the three take at least ~400 ms.
   */
  static void pacedRequestsWaitInsteadOf429(Call paced) throws Exception {
    long start = System.nanoTime();
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> response = paced.get();
      assertThat(response.statusCode()).as("request %d", i + 1).isEqualTo(200);
    }
    // A lower bound only, which a slow machine cannot break (a wait lasts at least what it was
    // told); 350 ms leaves 50 ms for the wait's rounding on two waits of 200 ms.
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("two waits of about 200 ms each")
        .isGreaterThanOrEqualTo(Duration.ofMillis(350));
  }

  /**
   * Under {@code slots} (1 in flight): a handler that throws gives its permit back; while a slow
   * request holds the permit another gets 429; once it is done the next passes.
   */
  static void permitHeldWhileHandled_releasedEvenWhenTheHandlerThrows(
      Function<String, Call> get, RateLimiter limiter) throws Exception {
    Slow.reset();
    assertThat(get.apply("/slots/boom").get().statusCode()).isEqualTo(500);
    awaitPermitBack(limiter); // the permit of the request that threw

    CompletableFuture<HttpResponse<String>> slow =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return get.apply("/slots/slow").get();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(Slow.entered.await(10, TimeUnit.SECONDS)).as("slow request entered").isTrue();
    assertThat(get.apply("/slots/quick").get().statusCode())
        .as("the one permit is held by the slow request")
        .isEqualTo(429);
    Slow.proceed.countDown();
    assertThat(slow.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    awaitPermitBack(limiter);
    assertThat(get.apply("/slots/quick").get().statusCode()).isEqualTo(200);
    awaitPermitBack(limiter);
  }

  /**
   * Waits (at most 5 s) until the one {@code slots} permit is free again. A handler's answer may
   * reach the client just before its permit is given back: Spring flushes a controller's body
   * before {@code afterCompletion} runs, and WebFlux writes an error's 500 before the exchange's
   * end reaches the filter, so the release follows the answer by a moment.
   */
  private static void awaitPermitBack(RateLimiter limiter) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (limiter.peek("slots", "127.0.0.1").remaining() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(limiter.peek("slots", "127.0.0.1").remaining())
        .as("the permit is given back once the request is done")
        .isEqualTo(1);
  }

  interface Call {
    HttpResponse<String> get() throws Exception;
  }

  /** Requests 1-5 pass with the RateLimit headers; the 6th is a 429 with Retry-After and JSON. */
  static void sixthRequestOfFivePerMinuteIsRejected(Call call) throws Exception {
    List<HttpResponse<String>> responses = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      responses.add(call.get());
    }
    for (int i = 0; i < 5; i++) {
      HttpResponse<String> ok = responses.get(i);
      assertThat(ok.statusCode()).as("request %d", i + 1).isEqualTo(200);
      assertThat(ok.body()).isEqualTo("welcome");
      assertThat(ok.headers().firstValue("RateLimit-Policy")).hasValue("\"login\";q=5;w=60");
      assertThat(ok.headers().firstValue("X-RateLimit-Limit")).hasValue("5");
      assertThat(ok.headers().firstValue("X-RateLimit-Remaining"))
          .hasValue(Integer.toString(4 - i));
      assertThat(ok.headers().firstValue("Retry-After")).isEmpty();
    }
    HttpResponse<String> denied = responses.get(5);
    System.out.println("6th answer: " + denied.statusCode() + " " + denied.headers().map());
    System.out.println("6th body: " + denied.body());
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("application/json");
    long retryAfter = Long.parseLong(denied.headers().firstValue("Retry-After").orElseThrow());
    assertThat(retryAfter).isBetween(1L, 60L);
    assertThat(denied.headers().firstValue("RateLimit-Policy")).hasValue("\"login\";q=5;w=60");
    assertThat(denied.headers().firstValue("RateLimit").orElseThrow())
        .startsWith("\"login\";r=0;t=");
    assertThat(denied.headers().firstValue("X-RateLimit-Limit")).hasValue("5");
    assertThat(denied.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
    assertThat(Long.parseLong(denied.headers().firstValue("X-RateLimit-Reset").orElseThrow()))
        .isBetween(1L, 120L);
    assertThat(denied.body())
        .startsWith("{\"error\":\"rate_limited\",\"message\":\"rate limit exceeded for 'login'")
        .contains("\"retryAfterMs\":");
  }
}
