package dev.sluice.client.middleware;

import dev.sluice.client.SluiceClient;
import dev.sluice.client.TestLimiters;
import dev.sluice.core.RateLimiter;
import java.net.InetSocketAddress;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
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

/** The Spring MVC interceptor in a DispatcherServlet on a real Jetty 12 (ee10), port 0. */
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
    server = new Server(new InetSocketAddress("127.0.0.1", 0));
    server.setHandler(context);
    server.start();
    int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();

    MiddlewareAssertions.sixthRequestOfFivePerMinuteIsRejected(() -> Http.get(port, "/login"));
  }

  @Test
  void interceptor_waitsInsteadOf429_andHoldsAPermitWhileHandled() throws Exception {
    AnnotationConfigWebApplicationContext spring = new AnnotationConfigWebApplicationContext();
    spring.register(WaitingConfig.class);
    ServletContextHandler context = new ServletContextHandler();
    context.addServlet(new ServletHolder(new DispatcherServlet(spring)), "/");
    server = new Server(new InetSocketAddress("127.0.0.1", 0));
    server.setHandler(context);
    server.start();
    int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();

    MiddlewareAssertions.pacedRequestsWaitInsteadOf429(() -> Http.get(port, "/paced"));
    MiddlewareAssertions.permitHeldWhileHandled_releasedEvenWhenTheHandlerThrows(
        path -> () -> Http.get(port, path), WaitingConfig.LIMITER);
  }

  @Configuration
  @EnableWebMvc
  static class WaitingConfig implements WebMvcConfigurer {
    static final RateLimiter LIMITER = MiddlewareAssertions.pacedAndSlots();

    @Bean
    SlotsController slotsController() {
      return new SlotsController();
    }

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
      registry
          .addInterceptor(new SluiceHandlerInterceptor(MiddlewareAssertions.paced(LIMITER)))
          .addPathPatterns("/paced");
      registry
          .addInterceptor(new SluiceHandlerInterceptor(MiddlewareAssertions.slots(LIMITER)))
          .addPathPatterns("/slots/**");
    }
  }

  @RestController
  static class SlotsController {
    @GetMapping("/paced")
    String paced() {
      return "welcome";
    }

    @GetMapping("/slots/boom")
    String boom() {
      throw new IllegalStateException("the handler failed");
    }

    @GetMapping("/slots/slow")
    String slow() throws InterruptedException {
      return MiddlewareAssertions.Slow.handle();
    }

    @GetMapping("/slots/quick")
    String quick() {
      return "quick";
    }
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
