package dev.sluice.client.middleware;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.GridMembers;
import dev.sluice.client.SluiceClient;
import dev.sluice.client.TestLimiters;
import dev.sluice.core.Algorithm;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.grid.Sluice;
import io.javalin.Javalin;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Javalin before-handler as docs/client.md shows it, over real HTTP on port 0, on a limiter in
 * this JVM and on a real grid member; every scenario of the gate runs in {@link
 * GateContractJavalinTest}.
 */
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
  void before_overARealGridMember_sixthRequestGets429() throws Exception {
    GridMembers settings = new GridMembers();
    try (Sluice member = Sluice.embedded(settings.rawMemberConfig(settings.basePort, true));
        SluiceClient sluice =
            SluiceClient.builder()
                .callTimeout(java.time.Duration.ofSeconds(2))
                .wrap(member.limiter())) {
      // A token bucket of 5 a minute: the member decides on the system clock, and a sliding
      // window's count is an estimate across a wall-clock minute, so six requests that straddle
      // one would see a count too few (once in a few hundred runs). The bucket gives a permit
      // back every 12 s, longer than six requests take, and advertises the same quota, 5 per 60 s.
      sluice
          .rules()
          .put(
              new Rule(
                  "login",
                  Policy.builder()
                      .algorithm(Algorithm.TOKEN_BUCKET)
                      .limit(5)
                      .window(java.time.Duration.ofMinutes(1))
                      .build()));
      int port = start(sluice, KeyExtractor.clientIp());
      MiddlewareAssertions.sixthRequestOfFivePerMinuteIsRejected(() -> Http.get(port, "/login"));
    }
  }
}
