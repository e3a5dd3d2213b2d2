package dev.sluice.spring;

import dev.sluice.spring.annotation.RateLimited;
import dev.sluice.spring.annotation.RateLimitedException;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring MVC application with only the starter's configuration (application-mvc.yml): HTTP Basic
 * users, gates before and after Spring Security, and {@code @RateLimited} services.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({StarterMvcApp.Hello.class, StarterMvcApp.Invites.class})
class StarterMvcApp {

  @Bean
  SecurityFilterChain security(HttpSecurity http) throws Exception {
    return http.authorizeHttpRequests(
            requests ->
                requests
                    .requestMatchers("/before/**", "/after/**")
                    .authenticated()
                    .requestMatchers(HttpMethod.DELETE, "/actuator/**")
                    .authenticated()
                    .anyRequest()
                    .permitAll())
        .httpBasic(Customizer.withDefaults())
        .csrf(csrf -> csrf.disable())
        .build();
  }

  @Bean
  InMemoryUserDetailsManager users() {
    return new InMemoryUserDetailsManager(
        User.withUsername("alice").password("{noop}a").roles("USER").build(),
        User.withUsername("bob").password("{noop}b").roles("USER").build(),
        User.withUsername("ops").password("{noop}o").roles("SLUICE_ADMIN").build());
  }

  @RestController
  static class Hello {
    private final Invites invites;

    Hello(Invites invites) {
      this.invites = invites;
    }

    @GetMapping({"/hello", "/before/account", "/after/account", "/payments"})
    String hello() {
      return "hello";
    }

    @PostMapping("/invite/{user}")
    String invite(@PathVariable String user) {
      return invites.invite(user);
    }

    @PostMapping("/digest/{user}")
    String digest(@PathVariable String user) {
      return invites.digest(user);
    }
  }

  @Service
  static class Invites {
    @RateLimited(rule = "invites", key = "#user")
    public String invite(String user) {
      return "invited " + user;
    }

    @RateLimited(rule = "invites", key = "'digest:' + #user", fallback = "later")
    public String digest(String user) {
      return "digest for " + user;
    }

    String later(String user, RateLimitedException e) {
      return "digest for " + user + " later: " + e.rule();
    }
  }
}
