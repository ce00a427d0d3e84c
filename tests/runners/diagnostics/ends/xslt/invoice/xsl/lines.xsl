<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
<xsl:template match="/">
<xsl:element name="">x</xsl:element>
<xsl:valueof select="1"/>
</xsl:template>
</xsl:stylesheet>
