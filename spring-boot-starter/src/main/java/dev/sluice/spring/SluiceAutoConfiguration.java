package dev.sluice.spring;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import dev.sluice.client.FailurePolicy;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.TimeSource;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.SluiceHazelcast;
import dev.sluice.spring.GateProperties.Position;
import dev.sluice.spring.annotation.RateLimitedBeanPostProcessor;
import dev.sluice.spring.annotation.RateLimitedExceptionHandler;
import dev.sluice.spring.web.ConfiguredGates;
import dev.sluice.spring.web.GateFactory;
import dev.sluice.spring.web.ReactiveGatesFilter;
import dev.sluice.spring.web.ServletGatesFilter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.context.annotation.Role;

/**
 * Sluice in a Spring Boot application, from {@code sluice.*} ({@link SluiceProperties}):
 *
 * <ul>
 *   <li>{@code sluiceLimiter}, the {@link RateLimiter} to inject: a {@link SluiceClient} (failure
 *       policy, call timeout, denied cache, leases, metrics in the application's {@link
 *       MeterRegistry}) in front of an embedded member's grid or of a remote grid. An application
 *       that defines a {@code RateLimiter} bean of its own keeps it, and everything below uses it.
 *   <li>the rules of {@code sluice.rules} and {@code sluice.rules-file} (hot-reloaded);
 *   <li>the gates of {@code sluice.gates}, as servlet filters or WebFlux filters placed before or
 *       after Spring Security's;
 *   <li>{@code @RateLimited} on bean methods, and a default answer to its {@code
 *       RateLimitedException}.
 * </ul>
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration"
    })
@EnableConfigurationProperties(SluiceProperties.class)
public class SluiceAutoConfiguration {

  /** The limiter over an embedded member: the application's, or one started here. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingBean(RateLimiter.class)
  @ConditionalOnProperty(
      prefix = "sluice",
      name = "mode",
      havingValue = "embedded",
      matchIfMissing = true)
  static class Embedded {

    @Bean(destroyMethod = "shutdown")
    @ConditionalOnMissingBean(HazelcastInstance.class)
    HazelcastInstance sluiceHazelcast(SluiceProperties properties) {
      return Hazelcast.newHazelcastInstance(memberConfig(properties));
    }

    @Bean(destroyMethod = "close")
    GridRateLimiter sluiceGridLimiter(HazelcastInstance member, SluiceProperties properties) {
      if (!(member instanceof HazelcastInstanceProxy)) {
        throw new IllegalStateException(
            "sluice.mode: embedded needs a Hazelcast member, but the application's"
                + " HazelcastInstance is a client: set sluice.mode: client and sluice.client.*");
      }
      return new GridRateLimiter(
          member, GridRateLimiter.Options.defaults().withLeases(properties.leases()));
    }

    /** Primary: the grid limiter under it is a {@code RateLimiter} too, without the client side. */
    @Bean(destroyMethod = "close")
    @Primary
    SluiceClient sluiceLimiter(
        GridRateLimiter grid, SluiceProperties properties, ObjectProvider<MeterRegistry> registry) {
      return options(properties, registry).wrap(grid);
    }
  }

  /** The limiter as a client of a remote grid. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingBean(RateLimiter.class)
  @ConditionalOnProperty(prefix = "sluice", name = "mode", havingValue = "client")
  static class Client {

    @Bean(destroyMethod = "close")
    SluiceClient sluiceLimiter(
        SluiceProperties properties, ObjectProvider<MeterRegistry> registry) {
      SluiceClient.Builder options =
          options(properties, registry)
              .clusterName(properties.clusterName())
              .leases(properties.leases())
              .connectTimeout(properties.connectTimeout());
      options.addresses(properties.client().addresses().toArray(String[]::new));
      return options.build();
    }
  }

  /** Sluice's part of any member's config: serialization, the state map, the member's context. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = "org.springframework.boot.hazelcast.autoconfigure.HazelcastConfigCustomizer")
  static class BootMember {
    /** Static: a post-processor is made before the other beans, without its configuration's. */
    @Bean
    static SluiceHazelcastConfigs sluiceHazelcastConfigs() {
      return new SluiceHazelcastConfigs();
    }
  }

  @Bean(destroyMethod = "close")
  SluiceRules sluiceRules(
      RateLimiter limiter, SluiceProperties properties, ObjectProvider<MeterRegistry> registry) {
    return new SluiceRules(limiter, properties, registry.getIfAvailable()).start();
  }

  @Bean
  ConfiguredGates sluiceGates(RateLimiter limiter, SluiceProperties properties) {
    return new ConfiguredGates(
        properties.gates(), new GateFactory(limiter, properties.trustedProxies()));
  }

  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static RateLimitedBeanPostProcessor sluiceRateLimitedPostProcessor(
      ObjectProvider<RateLimiter> limiter) {
    return new RateLimitedBeanPostProcessor(limiter::getObject);
  }

  /** The gates in a servlet application: one filter just before Spring Security, one after. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  static class Servlet {
    @Bean
    FilterRegistrationBean<ServletGatesFilter> sluiceGatesBeforeSecurity(ConfiguredGates gates) {
      return registration(gates, Position.BEFORE_SECURITY);
    }

    @Bean
    FilterRegistrationBean<ServletGatesFilter> sluiceGatesAfterSecurity(ConfiguredGates gates) {
      return registration(gates, Position.AFTER_SECURITY);
    }

    @Bean
    @ConditionalOnMissingBean
    RateLimitedExceptionHandler sluiceRateLimitedExceptionHandler() {
      return new RateLimitedExceptionHandler();
    }

    private static FilterRegistrationBean<ServletGatesFilter> registration(
        ConfiguredGates gates, Position position) {
      FilterRegistrationBean<ServletGatesFilter> registration =
          new FilterRegistrationBean<>(new ServletGatesFilter(gates, position));
      registration.setName(
          "sluiceGates" + (position == Position.BEFORE_SECURITY ? "Before" : "After") + "Security");
      registration.setOrder(ConfiguredGates.order(position));
      registration.setEnabled(!gates.isEmpty());
      return registration;
    }
  }

  /** The gates in a WebFlux application: one filter just before Spring Security, one after. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
  static class Reactive {
    @Bean
    ReactiveGatesFilter sluiceGatesBeforeSecurity(ConfiguredGates gates) {
      return new ReactiveGatesFilter(gates, Position.BEFORE_SECURITY);
    }

    @Bean
    ReactiveGatesFilter sluiceGatesAfterSecurity(ConfiguredGates gates) {
      return new ReactiveGatesFilter(gates, Position.AFTER_SECURITY);
    }

    @Bean
    @ConditionalOnMissingBean
    RateLimitedExceptionHandler sluiceRateLimitedExceptionHandler() {
      return new RateLimitedExceptionHandler();
    }
  }

  /** The client-side options every mode shares. */
  static SluiceClient.Builder options(
      SluiceProperties properties, ObjectProvider<MeterRegistry> registry) {
    SluiceClient.Builder options =
        SluiceClient.builder()
            .callTimeout(properties.callTimeout())
            .failurePolicy(properties.failurePolicy())
            .deniedCacheSize(properties.deniedCacheSize());
    for (Map.Entry<String, FailurePolicy> rule : properties.failurePolicies().entrySet()) {
      options.failurePolicy(rule.getKey(), rule.getValue());
    }
    registry.ifAvailable(options::meterRegistry);
    return options;
  }

  /** The member started in embedded mode when the application has none. */
  static Config memberConfig(SluiceProperties properties) {
    Config config = new Config();
    config.setClusterName(properties.clusterName());
    config.getNetworkConfig().setPort(properties.embedded().port()).setPortAutoIncrement(true);
    JoinConfig join = config.getNetworkConfig().getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).setMembers(properties.embedded().members());
    if (properties.embedded().members().isEmpty()) {
      // A cluster of one: nothing to reach, so nothing is offered beyond this host.
      config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
      config.setProperty("hazelcast.local.localAddress", "127.0.0.1");
    }
    return SluiceHazelcast.configure(config, TimeSource.system());
  }
}
