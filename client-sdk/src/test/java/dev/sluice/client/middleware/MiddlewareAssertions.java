package dev.sluice.client.middleware;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

/** The one scenario every middleware must pass: a 5-per-minute rule and six requests. */
final class MiddlewareAssertions {
  private MiddlewareAssertions() {}

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
