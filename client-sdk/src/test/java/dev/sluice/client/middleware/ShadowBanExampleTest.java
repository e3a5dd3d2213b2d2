package dev.sluice.client.middleware;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.SluiceClient;
import dev.sluice.core.Rule;
import dev.sluice.core.local.LocalRateLimiter;
import dev.sluice.core.rules.RulesFile;
import io.javalin.Javalin;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Figma's "stopping spam without telling the spammer", end to end as docs/shadow-ban.md tells it: a
 * rule that shadow-bans, a gate in front of the invitation endpoint, a handler that skips the
 * e-mail for a banned request, and a spammer who cannot tell from the answers.
 */
class ShadowBanExampleTest {
  private Javalin app;

  /** The invitations the application sent. */
  private final List<String> mailer = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    if (app != null) {
      app.stop();
    }
  }

  @Test
  void invitations_pastTheLimit_answeredAsSent_butNoneIsSent() throws Exception {
    // The rule of docs/shadow-ban.md, as the node's rules file holds it.
    List<Rule> rules =
        RulesFile.parse(
            "rules.yaml",
            """
            rules:
              - name: invites
                limit: 3
                window: 1d
                onDenied: shadow_ban
            """);
    SluiceClient sluice = SluiceClient.wrap(LocalRateLimiter.builder().rules(rules).build());
    // docs/shadow-ban.md: gate
    RateLimitGate invites =
        RateLimitGate.builder(sluice)
            .rule("invites")
            .key(KeyExtractor.header("X-User").orElse(KeyExtractor.clientIp()))
            .build();
    app =
        Javalin.create(
                config -> {
                  config.routes.before("/invites", SluiceJavalin.before(invites));
                  config.routes.post(
                      "/invites",
                      ctx -> {
                        if (!SluiceJavalin.shadowBanned(ctx)) {
                          mailer.add(ctx.formParam("email")); // the side effect
                        }
                        ctx.status(201).json(Map.of("status", "invited"));
                      });
                })
            .start("127.0.0.1", 0);
    // end
    int port = app.port();

    List<HttpResponse<String>> answers = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      answers.add(
          Http.post(port, "/invites", "email=victim" + i + "@example.com", "X-User", "spammer"));
    }
    for (HttpResponse<String> answer : answers) {
      assertThat(answer.statusCode()).isEqualTo(201);
      assertThat(answer.body()).isEqualTo(answers.get(0).body());
      assertThat(answer.headers().firstValue("RateLimit")).isEmpty();
      assertThat(answer.headers().firstValue("Retry-After")).isEmpty();
    }
    assertThat(mailer)
        .as("three invitations went out; the fourth and fifth were swallowed")
        .containsExactly("victim1@example.com", "victim2@example.com", "victim3@example.com");
    assertThat(sluice.peek("invites", "spammer").remaining()).isZero();

    Http.post(port, "/invites", "email=friend@example.com", "X-User", "alice");
    assertThat(mailer).as("another user is not limited by the spammer").hasSize(4);
  }
}
