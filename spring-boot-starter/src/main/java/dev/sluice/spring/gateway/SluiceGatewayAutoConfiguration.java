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
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
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
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnProperty(name = "spring.cloud.gateway.server.webflux.enabled", matchIfMissing = true)
@ConditionalOnBean(RateLimiter.class)
public class SluiceGatewayAutoConfiguration {

  /** The gateway's ConfigurationService is defined after this, by the gateway's configuration. */
  @Bean
  SluiceGatewayRateLimiter sluiceRateLimiter(
      RateLimiter limiter, ConfigurationService configurationService) {
    return new SluiceGatewayRateLimiter(limiter, configurationService);
  }

  @Bean
  SluiceGatewayExchangeFilter sluiceGatewayExchangeFilter() {
    return new SluiceGatewayExchangeFilter();
  }

  @Bean
  @ConditionalOnMissingBean(KeyResolver.class)
  GateKeyResolver sluiceClientIpKeyResolver(SluiceProperties properties) {
    return new GateKeyResolver(
        KeyExtractor.clientIp(TrustedProxies.of(properties.trustedProxies())));
  }
}
