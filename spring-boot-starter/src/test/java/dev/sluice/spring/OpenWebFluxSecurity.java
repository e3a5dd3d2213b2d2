package dev.sluice.spring;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;

/**
 * Spring Security in the WebFlux test applications, letting every request through: it is on the
 * classpath for the servlet tests, and its default would ask every request for a password.
 */
@Configuration(proxyBeanMethods = false)
@EnableWebFluxSecurity
class OpenWebFluxSecurity {
  @Bean
  SecurityWebFilterChain openToAll(ServerHttpSecurity http) {
    return http.authorizeExchange(exchanges -> exchanges.anyExchange().permitAll())
        .csrf(ServerHttpSecurity.CsrfSpec::disable)
        .build();
  }
}
