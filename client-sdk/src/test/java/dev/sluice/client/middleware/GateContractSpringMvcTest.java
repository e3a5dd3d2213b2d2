package dev.sluice.client.middleware;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The gate contract through {@link SluiceHandlerInterceptor}, in a {@code DispatcherServlet} on a
 * real Jetty 12 (ee10).
 */
class GateContractSpringMvcTest extends GateContract {
  private Server server;

  @Override
  protected int serve(Map<String, RateLimitGate> gates) throws Exception {
    AnnotationConfigWebApplicationContext spring = new AnnotationConfigWebApplicationContext();
    spring.register(Mvc.class);
    spring.addBeanFactoryPostProcessor(beans -> beans.registerSingleton("gates", new Gates(gates)));
    ServletContextHandler context = new ServletContextHandler();
    context.addServlet(new ServletHolder(new DispatcherServlet(spring)), "/");
    server = Jetty.start(context);
    return Jetty.port(server);
  }

  @Override
  protected void stopServing() throws Exception {
    if (server != null) {
      server.stop();
    }
  }

  /** The contract's gates, as a bean. */
  record Gates(Map<String, RateLimitGate> byPath) {}

  @Configuration
  @EnableWebMvc
  static class Mvc implements WebMvcConfigurer {
    private final Gates gates;

    Mvc(Gates gates) {
      this.gates = gates;
    }

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
      gates
          .byPath()
          .forEach(
              (path, gate) ->
                  registry
                      .addInterceptor(new SluiceHandlerInterceptor(gate))
                      .addPathPatterns(path));
    }

    @RestController
    static class ApplicationController {
      @GetMapping("/**")
      String handle(HttpServletRequest request) throws InterruptedException {
        return Application.handle(
            request.getRequestURI(), SluiceHandlerInterceptor.shadowBanned(request));
      }
    }
  }
}
