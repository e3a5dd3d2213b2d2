package dev.sluice.spring.gateway;

import dev.sluice.client.middleware.KeyExtractor;
import dev.sluice.client.middleware.TrustedProxies;
import dev.sluice.core.RateLimiter;
import dev.sluice.spring.SluiceAutoConfiguration;
import dev.sluice.spring.SluiceProperties;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;

/**
 * Sluice in a Spring Cloud Gateway (WebFlux) application: the rate limiter {@code
 * sluiceRateLimiter} and the key resolver {@code sluiceClientIpKeyResolver}. Before the gateway's
 * own configuration, so that its {@code RequestRateLimiter} filter finds them (and the client's
 * address, not the principal, is the default key: an anonymous request then counts instead of being
 * refused for want of a key).
 */
@AutoConfiguration(
    after = SluiceAutoConfiguration.class,
    beforeName = "org.springframework.cloud.gateway.config.GatewayAutoConfiguration")
@ConditionalOnClass({AbstractRateLimiter.class, ConfigurationService.class})
@ConditionalOnBean(RateLimiter.class)
public class SluiceGatewayAutoConfiguration {

  @Bean
  @ConditionalOnBean(ConfigurationService.class)
  SluiceGatewayRateLimiter sluiceRateLimiter(
      RateLimiter limiter, ConfigurationService configurationService) {
    return new SluiceGatewayRateLimiter(limiter, configurationService);
  }

  @Bean
  @ConditionalOnMissingBean(KeyResolver.class)
  GateKeyResolver sluiceClientIpKeyResolver(SluiceProperties properties) {
    return new GateKeyResolver(
        KeyExtractor.clientIp(TrustedProxies.of(properties.getTrustedProxies())));
  }
}
