package dev.sluice.spring.actuate;

import dev.sluice.client.SluiceClient;
import dev.sluice.core.RateLimiter;
import dev.sluice.spring.SluiceAutoConfiguration;
import dev.sluice.spring.SluiceProperties;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Sluice in Actuator: the endpoint {@code sluice} and the health indicator {@code sluice}. The
 * decisions' metrics need nothing here: the limiter records them in the application's {@code
 * MeterRegistry} under the node's names ({@code sluice_decisions_total{rule,outcome}}, {@code
 * sluice_decision_seconds}, {@code sluice_client_local_decisions_total}), so {@code
 * /actuator/prometheus} shows them.
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnBean(RateLimiter.class)
public class SluiceActuatorAutoConfiguration {

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name =
          "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint")
  static class Endpoint {
    @Bean
    @ConditionalOnAvailableEndpoint(SluiceEndpoint.class)
    SluiceEndpoint sluiceEndpoint(RateLimiter limiter, SluiceProperties properties) {
      return new SluiceEndpoint(limiter, properties.actuator().adminRole());
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  static class Health {
    @Bean
    @ConditionalOnBean(SluiceClient.class)
    SluiceHealthIndicator sluiceHealthIndicator(SluiceClient limiter) {
      return new SluiceHealthIndicator(limiter);
    }
  }
}
