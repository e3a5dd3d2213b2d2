package dev.sluice.spring.annotation;

import dev.sluice.core.RateLimiter;
import java.util.function.Supplier;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;

/**
 * Proxies every bean that has a {@link RateLimited} method, as Spring's own {@code @Async} and
 * {@code @Validated} support does: by a post-processor, so that it works whether or not the
 * application turned on AspectJ auto-proxying. Class-based proxies, so that controllers and other
 * beans without an interface are covered.
 */
public final class RateLimitedBeanPostProcessor
    extends AbstractBeanFactoryAwareAdvisingPostProcessor {
  private static final long serialVersionUID = 1L;

  private final transient Supplier<RateLimiter> limiter;

  /**
   * @param limiter the limiter, looked up at the first call: a post-processor is made before the
   *     beans it would need
   */
  public RateLimitedBeanPostProcessor(Supplier<RateLimiter> limiter) {
    this.limiter = limiter;
    setProxyTargetClass(true);
    setBeforeExistingAdvisors(true);
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    super.setBeanFactory(beanFactory);
    this.advisor =
        new DefaultPointcutAdvisor(
            AnnotationMatchingPointcut.forMethodAnnotation(RateLimited.class),
            new RateLimitedInterceptor(limiter, beanFactory));
  }
}
