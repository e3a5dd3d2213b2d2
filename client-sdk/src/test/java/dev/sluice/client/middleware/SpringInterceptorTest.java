package dev.sluice.client.middleware;

import dev.sluice.client.SluiceClient;
import dev.sluice.client.TestLimiters;
import dev.sluice.core.RateLimiter;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The Spring MVC interceptor as docs/client.md shows it, in a DispatcherServlet on a real Jetty 12
 * (ee10), port 0; every scenario of the gate runs in {@link GateContractSpringMvcTest}.
 */
class SpringInterceptorTest {
  private Server server;

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.stop();
    }
  }

  @Test
  void preHandle_sixthRequestOfFivePerMinute_gets429WithHeaders() throws Exception {
    AnnotationConfigWebApplicationContext spring = new AnnotationConfigWebApplicationContext();
    spring.register(WebConfig.class);
    ServletContextHandler context = new ServletContextHandler();
    context.addServlet(new ServletHolder(new DispatcherServlet(spring)), "/");
    server = Jetty.start(context);
    int port = Jetty.port(server);

    MiddlewareAssertions.sixthRequestOfFivePerMinuteIsRejected(() -> Http.get(port, "/login"));
  }

  @Configuration
  @EnableWebMvc
  static class WebConfig implements WebMvcConfigurer {
    @Bean
    RateLimiter rateLimiter() {
      return SluiceClient.wrap(TestLimiters.loginFivePerMinute());
    }

    @Bean
    LoginController loginController() {
      return new LoginController();
    }

    // docs/client.md: spring
    @Override
    public void addInterceptors(InterceptorRegistry registry) {
      RateLimitGate login =
          RateLimitGate.builder(rateLimiter()).rule("login").key(KeyExtractor.clientIp()).build();
      registry.addInterceptor(new SluiceHandlerInterceptor(login)).addPathPatterns("/login");
    }
    // end
  }

  @RestController
  static class LoginController {
    @GetMapping("/login")
    String login() {
      return "welcome";
    }
  }
}
