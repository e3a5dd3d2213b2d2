package dev.sluice.client.middleware;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.GridMembers;
import dev.sluice.client.SluiceClient;
import dev.sluice.client.TestLimiters;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.grid.Sluice;
import io.javalin.Javalin;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The Javalin before-handler over real HTTP, on port 0. */
class JavalinMiddlewareTest {
  private Javalin app;

  @AfterEach
  void stop() {
    if (app != null) {
      app.stop();
    }
  }

  private int start(RateLimiter limiter, KeyExtractor key) {
    // docs/client.md: javalin
    RateLimitGate login = RateLimitGate.builder(limiter).rule("login").key(key).build();
    app =
        Javalin.create(
                config -> {
                  config.routes.before("/login", SluiceJavalin.before(login));
                  config.routes.get("/login", ctx -> ctx.result("welcome"));
                })
            .start("127.0.0.1", 0);
    // end
    return app.port();
  }

  @Test
  void beforeAndAfter_waitInsteadOf429_andHoldAPermitWhileHandled() throws Exception {
    RateLimiter limiter = MiddlewareAssertions.pacedAndSlots();
    RateLimitGate paced = MiddlewareAssertions.paced(limiter);
    // docs/client.md: javalin-concurrency
    RateLimitGate slots = RateLimitGate.builder(limiter).rule("slots").build();
    app =
        Javalin.create(
                config -> {
                  config.routes.before("/slots/*", SluiceJavalin.before(slots));
                  config.routes.after("/slots/*", SluiceJavalin.after(slots));
                  // end
                  config.routes.before("/paced", SluiceJavalin.before(paced));
                  config.routes.get("/paced", ctx -> ctx.result("welcome"));
                  config.routes.get(
                      "/slots/boom",
                      ctx -> {
                        throw new IllegalStateException("the handler failed");
                      });
                  config.routes.get(
                      "/slots/slow", ctx -> ctx.result(MiddlewareAssertions.Slow.handle()));
                  config.routes.get("/slots/quick", ctx -> ctx.result("quick"));
                })
            .start("127.0.0.1", 0);
    int port = app.port();

    MiddlewareAssertions.pacedRequestsWaitInsteadOf429(() -> Http.get(port, "/paced"));
    MiddlewareAssertions.permitHeldWhileHandled_releasedEvenWhenTheHandlerThrows(
        path -> () -> Http.get(port, path), limiter);
  }

  @Test
  void before_sixthRequestOfFivePerMinute_gets429WithHeaders() throws Exception {
    SluiceClient sluice = SluiceClient.wrap(TestLimiters.loginFivePerMinute());
    int port = start(sluice, KeyExtractor.clientIp());
    MiddlewareAssertions.sixthRequestOfFivePerMinuteIsRejected(() -> Http.get(port, "/login"));
    // The 7th is answered by the denied cache: still a 429 with the headers.
    HttpResponse<String> seventh = Http.get(port, "/login");
    assertThat(seventh.statusCode()).isEqualTo(429);
    assertThat(seventh.body()).contains("\"decidedBy\":\"DENIED_CACHE\"");
  }

  @Test
  void clientIp_trustedLoopbackProxy_limitsByTheForwardedClient() throws Exception {
    SluiceClient sluice = SluiceClient.wrap(TestLimiters.loginFivePerMinute());
    int port =
        start(sluice, KeyExtractor.clientIp(TrustedProxies.of("127.0.0.0/8", "::1", "10.0.0.0/8")));
    // The client forged "1.1.1.1"; the trusted proxy 10.0.0.2 appended the real 203.0.113.7.
    MiddlewareAssertions.sixthRequestOfFivePerMinuteIsRejected(
        () -> Http.get(port, "/login", "X-Forwarded-For", "1.1.1.1, 203.0.113.7, 10.0.0.2"));
    // Another forged left part does not make a new key: same client, still denied.
    assertThat(
            Http.get(port, "/login", "X-Forwarded-For", "9.9.9.9, 203.0.113.7, 10.0.0.2")
                .statusCode())
        .isEqualTo(429);
    // Another real client behind the same proxy has its own budget.
    assertThat(Http.get(port, "/login", "X-Forwarded-For", "198.51.100.1, 10.0.0.2").statusCode())
        .isEqualTo(200);
  }

  @Test
  void clientIp_forwardedEntryNotAnAddress_usesTheLastTrustedHop() throws Exception {
    SluiceClient sluice = SluiceClient.wrap(TestLimiters.loginFivePerMinute());
    int port = start(sluice, KeyExtractor.clientIp(TrustedProxies.of("127.0.0.0/8", "::1")));
    // A hostname (or garbage) is never resolved: the key is the proxy that forwarded it.
    MiddlewareAssertions.sixthRequestOfFivePerMinuteIsRejected(
        () -> Http.get(port, "/login", "X-Forwarded-For", "evil.example.com"));
    assertThat(Http.get(port, "/login", "X-Forwarded-For", "other.example.com").statusCode())
        .isEqualTo(429);
  }

  @Test
  void before_overARealGridMember_sixthRequestGets429() throws Exception {
    GridMembers settings = new GridMembers();
    try (Sluice member = Sluice.embedded(settings.rawMemberConfig(settings.basePort, true));
        SluiceClient sluice =
            SluiceClient.builder()
                .callTimeout(java.time.Duration.ofSeconds(2))
                .wrap(member.limiter())) {
      sluice.rules().put(new Rule("login", Policy.of(5, java.time.Duration.ofMinutes(1))));
      int port = start(sluice, KeyExtractor.clientIp());
      MiddlewareAssertions.sixthRequestOfFivePerMinuteIsRejected(() -> Http.get(port, "/login"));
    }
  }

  @Test
  void header_missingHeader_fallsBackToClientIp() throws Exception {
    SluiceClient sluice = SluiceClient.wrap(TestLimiters.loginFivePerMinute());
    int port = start(sluice, KeyExtractor.header("X-Api-Key").orElse(KeyExtractor.clientIp()));
    MiddlewareAssertions.sixthRequestOfFivePerMinuteIsRejected(
        () -> Http.get(port, "/login", "X-Api-Key", "key-1"));
    assertThat(Http.get(port, "/login", "X-Api-Key", "key-2").statusCode()).isEqualTo(200);
    assertThat(Http.get(port, "/login").statusCode()).isEqualTo(200);
  }
}
