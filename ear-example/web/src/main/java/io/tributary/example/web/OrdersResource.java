package io.tributary.example.web;

import io.tributary.example.OrderBook;
import io.tributary.example.OrderPublisher;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code POST /api/orders} publishes the request body (one order, plain text) to Tributary;
 * {@code GET /api/orders} lists the orders the MDB has received, one per line, in arrival order.
 *
 * <p>Request-scoped: a CDI bean, so the container injects the EJBs (a plain resource class in a WAR without
 * beans.xml is not a bean, and its {@code @EJB} fields stay null).
 */
@Path("/orders")
@RequestScoped
public class OrdersResource {

    @EJB
    private OrderPublisher publisher;

    @EJB
    private OrderBook orderBook;

    @POST
    @Consumes(MediaType.TEXT_PLAIN)
    public Response publish(String order) {
        if (order == null || order.isBlank() || order.contains("\n")) {
            return Response.status(Response.Status.BAD_REQUEST).entity("an order is one non-blank line of text\n").build();
        }
        publisher.publish(order);
        return Response.accepted().build();
    }

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String received() {
        StringBuilder text = new StringBuilder();
        for (String order : orderBook.orders()) {
            text.append(order).append('\n');
        }
        return text.toString();
    }
}
