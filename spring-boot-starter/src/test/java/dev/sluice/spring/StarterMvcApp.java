package dev.sluice.spring;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import dev.sluice.spring.annotation.RateLimited;
import dev.sluice.spring.annotation.RateLimitedException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.beans.factory.annotation.Value;
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
 * users, gates before and after Spring Security, {@code @RateLimited} services, a Gateway Server
 * MVC route, and a Hazelcast member that Spring Boot makes from the application's {@link Config}
 * bean (the starter decides on it instead of starting a second one).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({
  StarterMvcApp.Hello.class,
  StarterMvcApp.Invites.class,
  StarterMvcApp.Welcomes.class,
  StarterMvcApp.Mailer.class
})
class StarterMvcApp {

  /** The application's own member, for Boot's Hazelcast auto-configuration: loopback, alone. */
  @Bean
  Config hazelcastConfig(
      @Value("${test.member-port}") int port, @Value("${test.cluster-name}") String cluster) {
    Config config = new Config();
    config.setClusterName(cluster);
    config.getNetworkConfig().setPort(port).setPortAutoIncrement(true);
    config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    config.setProperty("hazelcast.local.localAddress", "127.0.0.1");
    JoinConfig join = config.getNetworkConfig().getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    return config;
  }

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

    @GetMapping({"/hello", "/before/account", "/after/account", "/payments", "/reloaded"})
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

  /** Figma's case with {@code @RateLimited}: the annotated method is the side effect. */
  @RestController
  static class Welcomes {
    private final Mailer mailer;

    Welcomes(Mailer mailer) {
      this.mailer = mailer;
    }

    @PostMapping("/welcome/{user}")
    String welcome(@PathVariable String user) {
      mailer.sendWelcome(user);
      return "welcome sent";
    }
  }

  /** Sends (here: records) the e-mails; a shadow-banned call does not run. */
  @Service
  static class Mailer {
    private final List<String> sent = new CopyOnWriteArrayList<>();

    // docs/spring.md: shadow-ban
    @RateLimited(rule = "welcome", key = "#user")
    public void sendWelcome(String user) {
      sent.add(user); // a banned call does not run
    }

    // end

    /** The e-mails sent (a method: the bean is a proxy, whose fields are not the bean's). */
    public List<String> sent() {
      return sent;
    }
  }

  @Service
  static class Invites {
    @RateLimited(rule = "invites", key = "#user")
    public String invite(String user) {
      return "invited " + user;
    }

    // docs/spring.md: fallback
    @RateLimited(rule = "invites", key = "'digest:' + #user", fallback = "later")
    public String digest(String user) {
      return "digest for " + user;
    }

    String later(String user, RateLimitedException e) {
      return "digest for " + user + " later: " + e.rule();
    }
    // end
  }
}
