"""HTTP of Microsoft.ResourceGraph: `POST /providers/Microsoft.ResourceGraph/resources`."""
