package io.tributary.example.web;

import java.util.List;

import io.tributary.example.OrderBook;
import io.tributary.example.OrderLine;
import io.tributary.example.OrderPublisher;
import io.tributary.example.StoredOrder;
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
 * {@code POST /api/orders} publishes one order to Tributary, a JSON object
 * {@code {"customer": "alice", "item": "apples", "quantity": 3}} (202 Accepted; 400 with the reason, as text, when a
 * field is missing or invalid); {@code GET /api/orders} lists the orders the MDB has stored, a JSON array of
 * {@link StoredOrder}s in log order.
 *
 * <p>Request-scoped: a CDI bean, so the container injects the EJBs (a plain resource class in a WAR without
 * beans.xml is not a bean, and its {@code @EJB} fields stay null).
 */
@Path("/orders")
@RequestScoped
public class OrdersResource {

    /** The request body; JSON-B leaves a missing field null. */
    public record NewOrder(String customer, String item, Integer quantity) {
    }

    @EJB
    private OrderPublisher publisher;

    @EJB
    private OrderBook orderBook;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response publish(NewOrder order) {
        if (order == null || order.quantity() == null) {
            return badRequest("an order is {\"customer\": \"...\", \"item\": \"...\", \"quantity\": n}");
        }
        OrderLine line;
        try {
            line = new OrderLine(order.customer(), order.item(), order.quantity());
        } catch (IllegalArgumentException e) {
            return badRequest(e.getMessage());
        }
        publisher.publish(line);
        return Response.accepted().build();
    }

    static Response badRequest(String reason) {
        return Response.status(Response.Status.BAD_REQUEST).type(MediaType.TEXT_PLAIN).entity(reason + "\n").build();
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public List<StoredOrder> stored() {
        return orderBook.orders();
    }
}
