package io.tributary.itests.xacrash;

import java.io.IOException;

import jakarta.ejb.EJB;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code GET /handled}: the ids of the committed rows, one per line, then a last line {@code in-doubt=N} with the
 * number of transactions the database holds prepared and undecided.
 */
@WebServlet("/handled")
public class HandledRequestsServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @EJB
    private HandledRequests requests;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain;charset=UTF-8");
        for (String id : requests.ids()) {
            response.getWriter().append(id).append('\n');
        }
        response.getWriter().append("in-doubt=").append(Long.toString(requests.inDoubt())).append('\n');
    }
}
