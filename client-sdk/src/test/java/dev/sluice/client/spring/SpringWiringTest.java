package dev.sluice.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.client.Client;
import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.client.GridMembers;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.TimeSource;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * Two Spring applications: one embeds a member ({@link SluiceEmbeddedConfiguration}), the other
 * connects as a client ({@link SluiceClientConfiguration}); they limit the same keys together.
 */
class SpringWiringTest {

  @Test
  void embeddedMemberAndClient_asSpringBeans_shareOneGrid() {
    GridMembers settings = new GridMembers();
    try (AnnotationConfigApplicationContext embedded = new AnnotationConfigApplicationContext()) {
      // docs/client.md: spring-embedded
      embedded.registerBean(Config.class, () -> settings.rawMemberConfig(settings.basePort, true));
      embedded.registerBean(TimeSource.class, () -> settings.clock);
      embedded.register(SluiceEmbeddedConfiguration.class);
      embedded.refresh();
      RateLimiter limiter = embedded.getBean(RateLimiter.class); // the @Primary SluiceClient
      // end
      assertThat(limiter).isInstanceOf(SluiceClient.class);
      limiter.rules().put(new Rule("login", Policy.of(5, Duration.ofMinutes(1))));
      int port = GridMembers.portOf(embedded.getBean("sluiceHazelcast", HazelcastInstance.class));

      try (AnnotationConfigApplicationContext app = new AnnotationConfigApplicationContext()) {
        // docs/client.md: spring-client
        app.registerBean(
            SluiceClient.Builder.class,
            () ->
                SluiceClient.builder()
                    .clusterName(settings.clusterName)
                    .addresses("127.0.0.1:" + port)
                    .connectTimeout(Duration.ofSeconds(10))
                    .callTimeout(Duration.ofSeconds(1)));
        app.register(SluiceClientConfiguration.class);
        app.refresh();
        RateLimiter client = app.getBean(RateLimiter.class);
        // end
        assertThat(app.getBean("sluiceHazelcastClient", HazelcastInstance.class).getLocalEndpoint())
            .isInstanceOf(Client.class);

        for (int i = 0; i < 3; i++) {
          assertThat(limiter.tryAcquire("login", "ip").allowed()).isTrue();
        }
        // The denied cache answers for rules this client holds a copy of: read it first, as a
        // client that has decided under the rule before has (single checks read it in the
        // background, which a test must not race).
        assertThat(client.rules().find("login")).isPresent();
        assertThat(client.tryAcquire("login", "ip", 2).allowed()).isTrue();
        assertThat(client.tryAcquire("login", "ip").decidedBy()).isEqualTo(DecidedBy.LIMITER);
        assertThat(client.tryAcquire("login", "ip").decidedBy()).isEqualTo(DecidedBy.DENIED_CACHE);
        assertThat(limiter.tryAcquire("login", "ip").allowed()).isFalse();
      }
    }
  }
}
