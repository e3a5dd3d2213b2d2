package dev.sluice.spring;

import com.hazelcast.config.Config;
import dev.sluice.core.TimeSource;
import dev.sluice.core.grid.SluiceHazelcast;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.hazelcast.autoconfigure.HazelcastConfigCustomizer;

/**
 * Gives a member Spring Boot makes for the application what Sluice needs of it ({@link
 * SluiceHazelcast#configure}: serializers, the state map, the member's clock and sweep), so that
 * embedded mode can decide on the application's own member. Boot builds that member from a {@code
 * hazelcast.yaml} (customizers apply) or from a {@link Config} bean (post-processed here, before
 * Boot starts the member with it).
 */
final class SluiceHazelcastConfigs implements HazelcastConfigCustomizer, BeanPostProcessor {

  @Override
  public void customize(Config config) {
    SluiceHazelcast.configure(config, TimeSource.system());
  }

  @Override
  public Object postProcessBeforeInitialization(Object bean, String beanName) {
    if (bean instanceof Config config) {
      customize(config);
    }
    return bean;
  }
}
