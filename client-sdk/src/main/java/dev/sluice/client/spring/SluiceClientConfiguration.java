package dev.sluice.client.spring;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.spring.context.SpringManagedContext;
import dev.sluice.client.SluiceClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Sluice client in a Spring application: a Hazelcast client (smart routing) to a Sluice grid,
 * with the client-side decorators. Import it and define a {@link SluiceClient.Builder} bean with
 * the member addresses and cluster name (127.0.0.1:5701 and {@code sluice} by default). Beans:
 *
 * <ul>
 *   <li>{@code sluiceLimiter}: the {@link SluiceClient}, the one to inject as {@code RateLimiter};
 *   <li>{@code sluiceHazelcastClient}: its Hazelcast client, configured with hazelcast-spring's
 *       {@link SpringManagedContext}; it belongs to the {@code SluiceClient}, which shuts it down.
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
public class SluiceClientConfiguration {

  @Bean(destroyMethod = "close")
  public SluiceClient sluiceLimiter(
      ObjectProvider<SluiceClient.Builder> options, ApplicationContext applicationContext) {
    return options
        .getIfAvailable(SluiceClient::builder)
        .clientConfig(
            config -> config.setManagedContext(new SpringManagedContext(applicationContext)))
        .build();
  }

  @Bean(destroyMethod = "")
  public HazelcastInstance sluiceHazelcastClient(SluiceClient sluiceLimiter) {
    return sluiceLimiter
        .hazelcast()
        .orElseThrow(() -> new IllegalStateException("the Sluice client has no Hazelcast client"));
  }
}
