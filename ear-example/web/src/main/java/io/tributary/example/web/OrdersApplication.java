package io.tributary.example.web;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The REST API under {@code /tributary-example/api}. */
@ApplicationPath("/api")
public class OrdersApplication extends Application {
}
