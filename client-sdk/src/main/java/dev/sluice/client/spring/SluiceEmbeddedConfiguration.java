package dev.sluice.client.spring;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.spring.context.SpringManagedContext;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.TimeSource;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.SluiceHazelcast;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * Sluice embedded in a Spring application: the JVM joins the cluster as a member (it owns a share
 * of the partitions) and decides locally for the keys it owns.
 *
 * <p>Import it ({@code @Import(SluiceEmbeddedConfiguration.class)}) and, optionally, define beans
 * for a Hazelcast {@link Config} (cluster name, network, join; the default is Hazelcast's), a
 * {@link TimeSource} (the system clock by default) and a {@link SluiceClient.Builder} (client-side
 * options: failure policy, denied cache...). Beans provided:
 *
 * <ul>
 *   <li>{@code sluiceHazelcast}: the member, with hazelcast-spring's {@link SpringManagedContext}
 *       so that {@code @SpringAware} objects Hazelcast deserializes get their dependencies;
 *   <li>{@code sluiceGridLimiter}: the {@link GridRateLimiter} over it;
 *   <li>{@code sluiceLimiter}: a {@link SluiceClient} wrapping it, the {@code @Primary} {@code
 *       RateLimiter} to inject.
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
public class SluiceEmbeddedConfiguration {

  @Bean(destroyMethod = "shutdown")
  public HazelcastInstance sluiceHazelcast(
      ObjectProvider<Config> config,
      ObjectProvider<TimeSource> timeSource,
      ApplicationContext applicationContext) {
    Config memberConfig = config.getIfAvailable(Config::new);
    memberConfig.setManagedContext(new SpringManagedContext(applicationContext));
    SluiceHazelcast.configure(memberConfig, timeSource.getIfAvailable(TimeSource::system));
    return Hazelcast.newHazelcastInstance(memberConfig);
  }

  @Bean(destroyMethod = "close")
  public GridRateLimiter sluiceGridLimiter(HazelcastInstance sluiceHazelcast) {
    return new GridRateLimiter(sluiceHazelcast);
  }

  @Bean(destroyMethod = "close")
  @Primary
  public SluiceClient sluiceLimiter(
      GridRateLimiter sluiceGridLimiter, ObjectProvider<SluiceClient.Builder> options) {
    return options.getIfAvailable(SluiceClient::builder).wrap(sluiceGridLimiter);
  }
}
